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
