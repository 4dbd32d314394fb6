"""gpu-node-device-plugin-missing (advisory): a GPU node pool of the stack on which no device plugin of the stack lands.

The reading is ``gpu-node-device-plugin``'s (:mod:`policies.gpu_node_device_plugin`, shared once per request), and
the rule is :func:`rules.node_stack.node_stack_findings`' finding of kind ``missing``. It is advisory: the pack sees
one stack, and a device plugin installed by GitOps (Flux, Argo CD), by ``kubectl`` or by another stack is invisible
to it (Microsoft's own GPU MIG examples install it by hand). A pool declares such a plugin with the node label
``azure-gpu-platform/device-plugin: external``; ``devicePluginOutsideStack: true`` silences the finding for the
whole stack.
"""

from __future__ import annotations

from pulumi_policy import PolicyConfigSchema, ReportViolation, Severity, StackValidationArgs

from rules.node_stack import EXTERNAL_PLUGIN_LABEL, EXTERNAL_PLUGIN_VALUE

from ._meta import ADVISORY, GpuStackPolicy
from .gpu_node_device_plugin import OUTSIDE_STACK, report

NAME = "gpu-node-device-plugin-missing"


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    if bool((args.get_config() or {}).get(OUTSIDE_STACK, False)):
        return
    report(args, report_violation, "missing")


POLICY = GpuStackPolicy(
    name=NAME,
    what="Every GPU node pool of the stack (AKS pools, Windows too, and GPU NodePools) gets a device plugin from the "
    "stack (the GPU operator's, the nvidia-device-plugin chart's, a raw k8s-device-plugin DaemonSet, the KAITO "
    f"add-on's, AKS's on Windows) or declares one installed outside it (node label {EXTERNAL_PLUGIN_LABEL}="
    f"{EXTERNAL_PLUGIN_VALUE}).",
    why="AKS installs the GPU driver only: with no device plugin the nodes advertise no nvidia.com/gpu and GPU pods "
    "stay Pending. Advisory: a plugin installed by GitOps, kubectl or another stack is invisible to the pack.",
    validate=validate,
    level=ADVISORY,
    severity=Severity.MEDIUM,
    topics=["gpu", "aks", "device-plugin", "gpu-operator"],
    fix="Deploy the GPU operator or the nvidia-device-plugin chart tolerating (and selecting) the pool's nodes, or "
    f"label the pool's nodes {EXTERNAL_PLUGIN_LABEL}={EXTERNAL_PLUGIN_VALUE} when a plugin comes from outside the "
    "stack.",
    config_schema=PolicyConfigSchema(properties={OUTSIDE_STACK: {"type": "boolean", "default": False}}),
    config_doc=f"`{OUTSIDE_STACK}` (boolean, default false): a device plugin is installed outside this stack "
    "(GitOps, another stack) on every GPU pool: silences this policy; two plugins and the MIG strategy are still "
    "checked by gpu-node-device-plugin.",
)
