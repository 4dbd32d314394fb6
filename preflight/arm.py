"""The ARM form of a stack's AKS resources, from the preflight's recorded inputs, for ARM scanners such as Checkov.

``python -m preflight.arm REPORT.json OUT.json`` reads a ``make preflight FORMAT=json`` report and writes an ARM
deployment template with one resource per recorded ``ManagedCluster`` and ``AgentPool``: the inputs as the engine
sees them (camelCase), with the SDK-only inputs (``resourceGroupName``, ``resourceName``, ``agentPoolName``) turned
into the ARM resource name and ``location``/``tags``/``sku``/``identity`` lifted to the resource's top level, as in
the REST body (``conformance/facts/aks.json``). Values unknown in a preview stay the engine's unknown marker. ``make
checkov`` runs Checkov's ARM framework over the templates of prod and staging (``docs/security-checks.md``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

API_VERSION = "2025-09-01"
"""What pulumi-azure-native 3.29 sends for ``containerservice`` (``conformance/facts/aks.json``)."""

_CLUSTER = re.compile(r"^azure-native:containerservice(/v[0-9]{8}(preview)?)?:ManagedCluster$")
_POOL = re.compile(r"^azure-native:containerservice(/v[0-9]{8}(preview)?)?:AgentPool$")
_TOP_LEVEL = ("location", "tags", "sku", "identity", "kind")
_SDK_ONLY = ("resourceGroupName", "resourceName", "agentPoolName")


def _properties(inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in inputs.items() if k not in _TOP_LEVEL and k not in _SDK_ONLY and not k.startswith("__")}


def arm_resources(resources: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The recorded ``ManagedCluster`` and ``AgentPool`` registrations as ARM resources."""
    out: list[dict[str, Any]] = []
    for res in resources:
        token = str(res.get("type", ""))
        inputs: Mapping[str, Any] = res.get("inputs") or {}
        if _CLUSTER.match(token):
            body: dict[str, Any] = {
                "type": "Microsoft.ContainerService/managedClusters",
                "apiVersion": API_VERSION,
                "name": inputs.get("resourceName", res.get("name")),
            }
            body.update({k: inputs[k] for k in _TOP_LEVEL if k in inputs})
            body["properties"] = _properties(inputs)
            out.append(body)
        elif _POOL.match(token):
            cluster = inputs.get("resourceName", "cluster")
            pool = inputs.get("agentPoolName", res.get("name"))
            out.append(
                {
                    "type": "Microsoft.ContainerService/managedClusters/agentPools",
                    "apiVersion": API_VERSION,
                    "name": f"{cluster}/{pool}",
                    "properties": _properties(inputs),
                }
            )
    return out


def arm_template(report: Mapping[str, Any]) -> dict[str, Any]:
    """A deployment template of a preflight JSON report's AKS resources."""
    return {
        "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
        "contentVersion": "1.0.0.0",
        "metadata": {"generatedFrom": f"preflight report of stack {report.get('stack')}", "by": "preflight.arm"},
        "resources": arm_resources(report.get("resources") or []),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        sys.stderr.write("usage: python -m preflight.arm REPORT.json OUT.json\n")
        return 2
    report = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    out = Path(args[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(arm_template(report), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
