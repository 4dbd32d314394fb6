"""Kubernetes names the stack file sets (label keys and values), checked as Kubernetes and AKS check them.

One home for the rules ``stack_config/checks.py`` (node pool labels) and ``stack_config/kaito.py``
(workspace label selectors) apply. Sources: Kubernetes "Labels and Selectors" syntax (a key is an optional
DNS-subdomain prefix of at most 253 characters and ``/``, then a name of at most 63 characters; a value is at most
63 characters), and AKS's reserved labels and prefixes (MicrosoftDocs/azure-aks-docs, articles/aks/use-labels.md,
"Unavailable labels").
"""

from __future__ import annotations

import re

LABEL_KEY_RE = re.compile(r"^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
LABEL_VALUE_RE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")

AKS_RESERVED_LABEL_PREFIXES: tuple[str, ...] = ("kubernetes.azure.com/", "kubernetes.io/")
"""AKS refuses node labels under these prefixes (use-labels.md, "Reserved prefixes")."""

AKS_RESERVED_LABELS: frozenset[str] = frozenset(
    {"node.kubernetes.io/instance-type", "topology.kubernetes.io/region", "topology.kubernetes.io/zone"}
)
"""Reserved system labels AKS sets itself outside those prefixes (use-labels.md, "Reserved system labels")."""

_KEY_RULE = (
    "a label key is an optional DNS-subdomain prefix (lowercase, ≤253 characters) and '/', then a name of ≤63 "
    "letters, digits, '-', '_' or '.', starting and ending with a letter or digit, e.g. example.com/team"
)
_VALUE_RULE = "≤63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (or empty)"


def label_key_problem(key: str) -> str | None:
    """Why ``key`` is not a valid Kubernetes label key, or ``None`` (the caller's key path names the key)."""
    if not LABEL_KEY_RE.match(key):
        return f"not a valid Kubernetes label key: {_KEY_RULE}."
    return None


def node_label_key_problem(key: str) -> str | None:
    """Why AKS refuses ``key`` as a node label (syntax, reserved prefix, reserved label), or ``None``."""
    problem = label_key_problem(key)
    if problem is not None:
        return problem
    prefix = next((p for p in AKS_RESERVED_LABEL_PREFIXES if key.startswith(p)), None)
    if prefix is not None:
        return (
            f"under {prefix!r}, a prefix AKS reserves for its own node labels: AKS refuses the node pool. Use your "
            "own prefix, e.g. example.com/team."
        )
    if key in AKS_RESERVED_LABELS:
        return "a label AKS sets itself on every node and refuses to change. Use your own key."
    return None


def label_value_problem(value: str) -> str | None:
    """Why ``value`` is not a valid Kubernetes label value, or ``None``."""
    if not LABEL_VALUE_RE.match(value):
        return f"{value!r} is not a valid Kubernetes label value: {_VALUE_RULE}."
    return None


CHART_REFUSED_NAMESPACES: dict[str, dict[str, str]] = {
    "nvidia-device-plugin": {
        "default": "NVIDIA's nvidia-device-plugin chart fails the install in the 'default' namespace unless "
        "allowDefaultNamespace is set (templates/validation.yml, chart 0.20.0: \"Running in the 'default' namespace "
        'is not recommended"), so pulumi up would stop after the cluster exists',
    },
    "gpu-operator": {},
}
"""Namespaces a chart the platform installs refuses itself, with the chart's reason (``gpu_catalog/facts/
device_plugins.json``, ``gpu_operator.json``). The GPU operator chart (v26.7.0 ``templates/validations.yaml``)
refuses none."""


def chart_namespace_problem(chart: str, namespace: str) -> str | None:
    """Why ``chart`` refuses to be installed in ``namespace`` (the chart's own validation), or ``None``."""
    reason = CHART_REFUSED_NAMESPACES.get(chart, {}).get(namespace)
    if reason is None:
        return None
    return f"{namespace!r}: {reason}. Use a namespace of its own, e.g. {chart!r}."
