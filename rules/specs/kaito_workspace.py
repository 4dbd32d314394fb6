"""The KAITO model workspace, defined once: its fields, every default resolved here, and its whole checklist.

``KaitoGpuWorkspace(workspace_name=..., preset=..., instance_type=..., kubernetes_version=..., addon_enabled=...)`` is
the workspace every door builds: the stack config parses ``kaito.workspaces[i]`` into it
(:meth:`stack_config.kaito.KaitoWorkspaceConfig.spec`), the Python API constructs it (``components.kaito.
KaitoWorkspaceArgs`` is this spec refusing its findings at construction), the component package maps its
``KaitoWorkspace`` inputs to it by name (``component_package/kaito_workspace.py``), the policy pack builds it from a
Workspace resource's properties, partially (``policies/_specs.py`` ``wire_workspace``). A field left out gets the same
default whichever door it came in by.

Resolved defaults and spellings (from the facts):

- ``match_labels``: ``{"apps": <workspace name>}``;
- ``count``: :data:`gpu_catalog.kaito_presets.KAITO_DEFAULT_COUNT`;
- ``preset``: the preset table's own spelling (KAITO matches preset names exactly; the table is case-insensitive);
- ``instance_type``: the catalog's spelling of a known size.

The checklist (:meth:`KaitoGpuWorkspace.findings`, ``today`` passed in) is :func:`rules.checklists.kaito_workspace`
with the cluster's add-on and its version; :meth:`KaitoGpuWorkspace.workspace_findings` leaves the cluster out, for a
caller that checks the cluster once for all its workspaces (the stack config). Fields are named as in a stack file
(``instanceType``, ``modelAccessSecret``; the cluster's ``addon`` and ``kubernetesVersion``).

Pure: no Pulumi import, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import date

from gpu_catalog import default_catalog
from gpu_catalog.kaito_presets import KAITO_DEFAULT_COUNT, kaito_preset

from .. import Finding
from ..checklists_kaito import KaitoWorkspaceFacts, kaito_workspace
from ..kaito import KaitoCluster, KaitoWorkspace
from ..sizes import DEFAULT_FLOOR


@dataclass(frozen=True)
class KaitoGpuWorkspace:
    """One model KAITO serves, and the cluster facts its rules need: every default resolved once (module
    docstring)."""

    workspace_name: str
    """The Workspace's name, which KAITO gives the model's Service (a DNS label)."""
    preset: str
    """KAITO preset (``inference.preset.name``), e.g. ``phi-4-mini-instruct``."""
    instance_type: str
    """GPU size of the nodes KAITO provisions."""
    kubernetes_version: str
    """The cluster's: it decides the KAITO add-on version AKS runs (the preset table is one version's)."""
    addon_enabled: bool
    """The cluster's KAITO add-on (``aiToolchainOperatorProfile.enabled``): the Workspace CRD exists only with it."""
    match_labels: Mapping[str, str] | None = None
    """Labels of the nodes KAITO provisions and selects; ``None``: ``{"apps": <workspace name>}``."""
    count: int = KAITO_DEFAULT_COUNT
    """How many nodes of ``instance_type`` KAITO provisions."""
    namespace: str = "default"
    model_access_secret: str | None = None
    """The Secret (key ``HF_TOKEN``) a preset downloaded at run time reads its Hugging Face token from."""
    model_access_token_config: str | None = None
    """Full Pulumi config key (``kaito:hfToken``) of the secret value the platform creates that Secret from."""
    model_access_from_key_vault: bool = False
    """The Secret is mirrored from Key Vault by the Secrets Store CSI driver: the platform creates no Secret."""
    gpu_floor: str = DEFAULT_FLOOR
    """The smallest GPU size allowed (policy ``gpu-size-minimum``)."""

    def __post_init__(self) -> None:
        if self.match_labels is None:
            object.__setattr__(self, "match_labels", {"apps": self.workspace_name})
        preset = kaito_preset(self.preset)
        if preset is not None:
            object.__setattr__(self, "preset", preset.name)
        size = default_catalog().lookup(self.instance_type)
        if size is not None:
            object.__setattr__(self, "instance_type", size.name)

    @property
    def node_labels(self) -> dict[str, str]:
        """:attr:`match_labels`, resolved (typed for callers)."""
        return dict(self.match_labels or {})

    @property
    def cluster(self) -> KaitoCluster:
        """The cluster the workspace runs on, as the KAITO rules see it."""
        return KaitoCluster(addon_enabled=self.addon_enabled, workspaces=1, kubernetes_version=self.kubernetes_version)

    @property
    def workspace(self) -> KaitoWorkspace:
        """The Workspace as the single KAITO rules see it (the policy pack calls them one per policy)."""
        return self.checklist(with_cluster=False).workspace

    def checklist(self, *, with_cluster: bool = True) -> KaitoWorkspaceFacts:
        """The workspace (and its cluster, ``with_cluster``) as the KAITO checklist sees it."""
        return KaitoWorkspaceFacts(
            name=self.workspace_name,
            preset=self.preset,
            instance_type=self.instance_type,
            count=self.count,
            model_access_secret=self.model_access_secret,
            model_access_token_config=self.model_access_token_config,
            model_access_from_key_vault=self.model_access_from_key_vault,
            gpu_floor=self.gpu_floor,
            cluster=self.cluster if with_cluster else None,
        )

    def findings(self, *, today: date) -> list[Finding]:
        """Every guard rail the workspace breaks on ``today``: :func:`rules.checklists.kaito_workspace` with its
        cluster's add-on and version."""
        return kaito_workspace(self.checklist(), today=today)

    def workspace_findings(self, *, today: date) -> list[Finding]:
        """The workspace's own guard rails (the checklist without the cluster's add-on and version, which a caller
        with several workspaces checks once: :func:`rules.checklists.kaito_cluster`)."""
        return kaito_workspace(self.checklist(with_cluster=False), today=today)


KAITO_WORKSPACE_FIELDS: frozenset[str] = frozenset(f.name for f in fields(KaitoGpuWorkspace))
"""The spec's field names: a door maps its keys onto them."""
