"""The engine's wire format: the sentinels of the gRPC property encoding and conversions between its views.

The Pulumi SDK serializes resource properties into a gRPC ``Struct`` in which special values are objects tagged with
:data:`SIG_KEY` (a secret, a resource reference, an asset, an archive) and a value that is not known during a preview
is the string :data:`UNKNOWN`. The engine hands a policy pack the decoded struct with resource references downgraded
(:func:`engine_value`); the preflight's report and cost estimate see it with secrets masked or unwrapped.

The one home of these constants in the preflight (the policy pack has its own view through ``pulumi_policy``). No
dependencies: the CLI, the report and the cost estimate import it without the Pulumi SDK.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
"""How the engine (and so a policy pack) sees a value that is not known during a preview."""


def is_unknown(value: Any) -> bool:
    """Whether a recorded input is the engine's unknown-during-preview value."""
    return isinstance(value, str) and value == UNKNOWN


SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7"

STACK_TYPE = "pulumi:pulumi:Stack"
"""The type of the root resource every program registers first."""


def is_secret(value: Any) -> bool:
    """Whether ``value`` is a secret in its wire form (``{SIG_KEY: SECRET_SIG, "value": ...}``)."""
    return isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG


def engine_value(value: Any) -> Any:
    """A value decoded from a gRPC ``Struct`` as the engine hands it to an analyzer.

    Secrets stay in their wire form (a policy pack unwraps them); resource references become the resource's ID
    (custom resources; unknown when the ID is not known) or URN (components), as the engine does for a client that
    does not accept resource references.
    """
    if isinstance(value, dict):
        sig = value.get(SIG_KEY)
        if sig == RESOURCE_SIG:
            rid = value.get("id")
            if rid is not None:
                return rid if rid != "" else UNKNOWN
            return value.get("urn", UNKNOWN)
        if sig == SECRET_SIG:
            return {SIG_KEY: SECRET_SIG, "value": engine_value(value.get("value"))}
        return {k: engine_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [engine_value(v) for v in value]
    return value


def _replace_secrets(value: Any, replace: Callable[[dict[str, Any]], Any]) -> Any:
    if isinstance(value, dict):
        if is_secret(value):
            return replace(value)
        return {k: _replace_secrets(v, replace) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_secrets(v, replace) for v in value]
    return value


def unwrap_secrets(value: Any) -> Any:
    """The plain value with every wire-form secret replaced by its content (for the cost estimate)."""
    return _replace_secrets(value, lambda secret: unwrap_secrets(secret.get("value")))


def mask_secrets(value: Any) -> Any:
    """The value with every secret shown as ``"[secret]"`` (for reports)."""
    return _replace_secrets(value, lambda _: "[secret]")


def config_string(value: Any) -> str:
    """The string the Pulumi CLI hands the program for one config value (objects and lists JSON-encoded)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
