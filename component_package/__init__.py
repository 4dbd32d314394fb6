"""The Pulumi component package ``azure-gpu-platform``: this project's components for every Pulumi language.

Other teams add the package with ``pulumi package add`` and get a generated SDK (TypeScript, Go, C#, Java, Python) or
use it from Pulumi YAML (``docs/component-package.md``). The Pulumi CLI starts this directory's ``__main__.py`` as a
provider plugin; :func:`serve` hosts the components below with the Python SDK's component provider
(``pulumi.provider.experimental``), which infers the package schema from the annotations of the modules here: the Args
``TypedDict`` of each component's ``__init__`` (the inputs; docstrings become descriptions), the ``pulumi.Output``
class attributes (the outputs) and the ``Enum`` types.

Every class here is a thin, schema-facing layer over the project's components (``components/``): it maps its Args to
the component's own typed Args (:class:`~components.gpu_node_pool.GpuPoolSpec`,
:class:`~components.aks_cluster.AksGpuClusterArgs`, :class:`~components.gpu_operator.GpuOperatorArgs`,
:class:`~components.kaito.KaitoWorkspaceArgs`, :class:`~components.databricks.DatabricksGpuClusterArgs`,
:class:`~components.nap_pool.NapGpuPoolArgs`) and constructs that component as its child. The Args check themselves
with the rules (``rules/``), so a value the rules refuse fails at construction with the rules' message, as it does
from Python; :class:`~component_package.provider.GpuPackageProvider` returns it to the engine as an input-properties
error naming the property (``pool.vmSize``), not as a stack trace.

Enum values are taken from the constants and types the rules and components use (OS SKUs, MIG profiles, sharing
modes, data security modes, the Karpenter facts' capacity types, image families and consolidation policies, ...), never
written again here.

Modules: one per component (``gpu_node_pool``, ``aks_gpu_cluster``, ``gpu_operator``, ``nvidia_device_plugin``,
``kaito_workspace``, ``databricks_gpu_cluster``, ``nap_gpu_pool``), their shared ``inputs``, ``outputs`` and ``enums``,
``args`` (schema Args → the components' typed Args) and ``provider``. None uses ``from __future__ import annotations``:
the schema is inferred from the annotation objects.
``pulumi_databricks`` is imported only when a ``DatabricksGpuCluster`` is constructed.
"""
