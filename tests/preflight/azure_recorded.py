"""Azure without Azure: the real azure-mgmt-compute client over azure-core's own requests transport, whose session
answers with recorded response bodies (tests/fixtures/azure_quota, Microsoft's REST examples and edited copies).

Nothing of the SDK is faked: the client builds its requests, the pipeline runs its policies (bearer token, retry),
the transport sends through ``requests``, and the SDK deserialises the recorded bodies into its own models. Only the
network end (a ``requests`` adapter) and the credential (a static token) are stand-ins.
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3
from azure.core.credentials import AccessToken
from azure.core.pipeline.transport import RequestsTransport
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "azure_quota"


def body(name: str) -> Any:
    """The recorded 200 response body of a fixture file (the REST example's ``responses.200.body``)."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))["responses"]["200"]["body"]


@dataclass
class RecordedAdapter(BaseAdapter):
    """Answers ``/locations/<region>/usages`` with ``usages[region]`` (else ``usages["*"]``), ``/skus`` with
    ``skus``, and any other path (a ``nextLink``) with an empty page; records every request."""

    usages: dict[str, Any]
    skus: Any
    status: int = 200
    requests_seen: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__()

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        url = str(request.url)
        self.requests_seen.append(url)
        path = urlsplit(url).path
        if self.status != 200:
            payload: Any = {"error": {"code": "AuthorizationFailed", "message": "recorded failure"}}
        elif path.endswith("/usages"):
            region = path.rsplit("/", 2)[-2]
            payload = self.usages.get(region, self.usages.get("*", {"value": []}))
        elif path.endswith("/skus"):
            payload = self.skus
        else:
            payload = {"value": []}
        data = json.dumps(payload).encode()
        headers = {"Content-Type": "application/json; charset=utf-8", "Content-Length": str(len(data))}
        response = requests.Response()
        response.status_code = self.status
        response.raw = urllib3.HTTPResponse(
            body=io.BytesIO(data), headers=headers, status=self.status, preload_content=False
        )
        response.headers = CaseInsensitiveDict(headers)
        response.url = url
        response.request = request
        response.encoding = "utf-8"
        return response

    def close(self) -> None:
        pass


class StaticToken:
    """A TokenCredential that hands out one token (the pipeline's bearer policy asks for it)."""

    def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return AccessToken("recorded-token", int(time.time()) + 3600)


def recorded_transport(adapter: RecordedAdapter) -> RequestsTransport:
    session = requests.Session()
    session.mount("https://", adapter)
    return RequestsTransport(session=session, session_owner=False)
