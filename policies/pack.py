"""The pack's name and its policies (``__main__.py`` serves them, ``rules_md`` documents them).

A policy registers itself: it is a public module of this package, named after the policy with underscores for hyphens,
whose ``POLICY`` is a :data:`~policies._meta.DocumentedPolicy`. Adding ``policies/<name>.py`` adds the policy; no list
is kept by hand. The modules are found in this package's own folder (in the repository and in a built pack alike:
``policies/_build_pack.py`` copies the whole package) and imported in name order, so the pack is the same on every
run. A public module that is not a policy is named in :data:`NOT_POLICIES`; a module that breaks the convention stops
the pack with a message naming it.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from ._meta import DocumentedPolicy, GpuResourcePolicy, GpuStackPolicy

PACK_NAME = "azure-gpu-guardrails"
PACKAGE_DIR = Path(__file__).resolve().parent
NOT_POLICIES = frozenset({"pack", "rules_md"})
"""The package's public modules that are not policies (this module, and the RULES.md renderer, which imports it)."""


class PolicyModuleError(Exception):
    """A module of the pack's package is not a policy as :mod:`policies.pack` expects one."""


def policy_module_names(folder: Path = PACKAGE_DIR) -> list[str]:
    """The policy modules in ``folder``, sorted: public modules (no leading ``_``) except :data:`NOT_POLICIES`."""
    found = (m.name for m in pkgutil.iter_modules([str(folder)]))
    return sorted(name for name in found if not name.startswith("_") and name not in NOT_POLICIES)


def _load(module_name: str) -> DocumentedPolicy:
    module = importlib.import_module(f"{__package__}.{module_name}")
    policy = getattr(module, "POLICY", None)
    if not isinstance(policy, GpuResourcePolicy | GpuStackPolicy):
        raise PolicyModuleError(
            f"policies/{module_name}.py has no POLICY built with policies._meta (GpuResourcePolicy or GpuStackPolicy);"
            " a public module of policies/ is a policy, or is named in policies.pack.NOT_POLICIES"
        )
    if policy.name != module_name.replace("_", "-"):
        raise PolicyModuleError(
            f"policies/{module_name}.py defines policy {policy.name!r}: a policy module is named after its policy "
            f"({policy.name.replace('-', '_')}.py)"
        )
    return policy


ALL_POLICIES: list[DocumentedPolicy] = [_load(name) for name in policy_module_names()]
