"""Settings that do nothing without their switch: written in the stack file while the feature they configure is off.

Warned about (never refused: a team may stage a setting before turning the feature on), each naming the key written,
the switch and its value. :func:`inert_settings` is pure; :func:`stack_config.loading.load_stack_config` logs
them (the preflight lists them with its other warnings).
"""

from __future__ import annotations

from pydantic import BaseModel

from .models import StackConfig


def _written(section: BaseModel, *skip: str) -> list[str]:
    """The keys of ``section`` the stack file wrote (defaults left out), in model order."""
    return [k for k in type(section).model_fields if k in section.model_fields_set and k not in skip]


def _warning(where: str, keys: list[str], switch: str, value: object, effect: str) -> str:
    listed = ", ".join(f"{where}.{k}" for k in keys)
    verb = "does" if len(keys) == 1 else "do"
    return (
        f"{listed} {verb} nothing while {switch} is {str(value).lower()}: {effect}. Set {switch}: true to use "
        f"{'it' if len(keys) == 1 else 'them'}, or remove {'it' if len(keys) == 1 else 'them'}."
    )


def inert_settings(cfg: StackConfig) -> list[str]:
    """One warning per section with settings that take effect only when its switch is on."""
    out: list[str] = []
    policy = cfg.azurePolicy
    if not policy.enabled and (keys := _written(policy, "enabled")):
        out.append(
            _warning(
                "azurePolicy", keys, "azurePolicy.enabled", False, "no Azure Policy definition or assignment is created"
            )
        )
    operator = cfg.gpuOperator
    if not operator.enabled and (keys := _written(operator, "enabled")):
        out.append(
            _warning("gpuOperator", keys, "gpuOperator.enabled", False, "the GPU operator chart is not installed")
        )
    access = cfg.cluster.access
    if not access.grantDeployer and (keys := _written(access, "grantDeployer")):
        keys = [k for k in keys if k != "propagationWaitSeconds" or not cfg.cluster.adminGroupObjectIds]
        if keys:
            out.append(
                _warning(
                    "cluster.access",
                    keys,
                    "cluster.access.grantDeployer",
                    False,
                    "no role assignment is created for the deploying identity"
                    + ("" if cfg.cluster.adminGroupObjectIds else " (and none for admin groups: the list is empty)"),
                )
            )
    if cfg.databricks is not None:
        cp = cfg.databricks.clusterPolicy
        if not cp.enabled and (keys := _written(cp, "enabled")):
            out.append(
                _warning(
                    "databricks.clusterPolicy",
                    keys,
                    "databricks.clusterPolicy.enabled",
                    False,
                    "no cluster policy is created in the workspace",
                )
            )
    return out
