"""The KAITO workspace checklist (re-exported by :mod:`rules.checklists`): every rule a KAITO Workspace the platform
deploys must pass, written once for the stack config (``stack_config/kaito.py``), ``KaitoWorkspaceArgs``
(``components/kaito.py``) and the component package (through those Args)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from gpu_catalog.kaito_presets import KAITO_DEFAULT_COUNT

from . import Finding, findings
from .kaito import (
    KaitoCluster,
    KaitoWorkspace,
    addon_enabled,
    addon_version,
    instance_type,
    known_preset,
    model_access,
    preset_fit,
)
from .sizes import DEFAULT_FLOOR


@dataclass(frozen=True)
class KaitoWorkspaceFacts:
    """A KAITO Workspace the platform deploys, as its checklist sees it (fields named as a stack file names them in
    the findings: ``preset``, ``instanceType``, ``modelAccessSecret``, ``modelAccessTokenConfig``,
    ``modelAccessFromKeyVault``; the cluster's ``addon`` and ``kubernetesVersion``)."""

    name: str
    preset: str
    instance_type: str
    count: int = KAITO_DEFAULT_COUNT
    model_access_secret: str | None = None
    model_access_token_config: str | None = None
    model_access_from_key_vault: bool = False
    gpu_floor: str = DEFAULT_FLOOR
    cluster: KaitoCluster | None = None
    """The cluster the Workspace runs on (its add-on and the add-on's version, :func:`kaito_cluster`); ``None``: the
    caller checks the cluster once for all its workspaces (the stack config, which words it for a stack file)."""

    @property
    def workspace(self) -> KaitoWorkspace:
        """The Workspace as the single KAITO rules see it."""
        return KaitoWorkspace(
            instance_type=self.instance_type,
            count=self.count,
            preset=self.preset,
            model_access_secret=self.model_access_secret,
            name=self.name,
            model_access_token_config=self.model_access_token_config,
            model_access_from_key_vault=self.model_access_from_key_vault,
        )


def kaito_cluster(cluster: KaitoCluster, *, workspaces: str = "the KAITO workspaces") -> list[Finding]:
    """The rules over the cluster KAITO workspaces run on: the add-on is on and runs the preset table's version
    (``workspaces``: how the advice names the workspaces)."""
    return [*findings(addon_enabled(cluster)), *findings(addon_version(cluster, workspaces=workspaces))]


def kaito_workspace(ws: KaitoWorkspaceFacts, *, today: date) -> list[Finding]:
    """Every guard rail a KAITO Workspace breaks: its cluster's add-on and version (when ``ws.cluster`` is given), a
    known preset, an instance type KAITO provisions within the size rules and the GPU floor, nodes that hold the
    model, and the model-access Secret with where its token comes from.

    ``today``: the day the dated rules are judged on (retired sizes, the sizes a message suggests)."""
    workspace = ws.workspace
    return [
        *(kaito_cluster(ws.cluster) if ws.cluster is not None else []),
        *findings(known_preset(workspace)),
        *findings(instance_type(workspace, size_rules=True, floor=ws.gpu_floor, today=today)),
        *findings(preset_fit(workspace, today=today)),
        *model_access(workspace),
    ]


__all__ = ["KaitoWorkspaceFacts", "kaito_cluster", "kaito_workspace"]
