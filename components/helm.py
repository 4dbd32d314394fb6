"""One Helm release through the cluster's Kubernetes provider: what ``GpuOperator`` and ``NvidiaDevicePlugin`` share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pulumi

if TYPE_CHECKING:
    from pulumi_kubernetes.helm.v3 import Release


def helm_release(
    name: str,
    *,
    release_name: str,
    chart: str,
    repo: str,
    version: str,
    namespace: str,
    values: Mapping[str, Any],
    parent: pulumi.Resource,
    provider: pulumi.ProviderResource,
    depends_on: Sequence[pulumi.Resource] = (),
) -> Release:
    """A ``helm.sh/v3`` Release of ``chart`` at ``version`` from ``repo`` in its own (created) namespace."""
    from pulumi_kubernetes.helm.v3 import Release, ReleaseArgs, RepositoryOptsArgs

    return Release(
        name,
        ReleaseArgs(
            name=release_name,
            chart=chart,
            version=version,
            repository_opts=RepositoryOptsArgs(repo=repo),
            namespace=namespace,
            create_namespace=True,
            values=dict(values),
        ),
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(depends_on)),
    )
