"""Issue 10, "stack files: every mistake reported in one run": what the program itself refuses or warns about.

Each test feeds the concrete mistake a platform team made and asserts the key path and the message. The preflight's
own part (encodings, duplicate keys, YAML syntax, budget and policy merged with these) is in
tests/preflight/test_stackfile.py and tests/preflight/test_cli.py.
"""

from __future__ import annotations

import pytest

from stack_config import StackConfig, StackConfigError, validate_stack_config
from stack_config.base import PATTERN_WORDS
from stack_config.databricks import MAX_TASKS_PER_GPU, task_gpu_amount
from stack_config.keys import foreign_key_findings, provider_config_keys, referenced_keys
from tests.components.harness import STACKS_DIR, run_main, stack_config
from tests.components.test_deployable import T4, config, problems

MI300X = {"name": "mi300x", "vmSize": "Standard_ND96isr_MI300X_v5", "minCount": 1, "maxCount": 2}
PROJECT_KEYS = ["environment", "location", "gpuPools", "cluster", "gpuOperator", "budget", "policy"]


# ------------------------------------------------------------------------------ 1. misspelled / unused namespaces


def test_a_misspelled_namespace_is_refused_naming_the_key_it_was_meant_to_be() -> None:
    found, warnings = foreign_key_findings(
        ["azure-gpu-platform:environment", "azure-gpu-platfrom:gpuPools"],
        project="azure-gpu-platform",
        project_keys=PROJECT_KEYS,
    )
    assert warnings == []
    assert [(p.path, p.message) for p in found] == [
        (
            "azure-gpu-platfrom:gpuPools",
            "namespace 'azure-gpu-platfrom' is not this project's ('azure-gpu-platform'): Pulumi hands this key to no "
            "one, so its value would be ignored and the next `pulumi up` would delete what it used to declare. Write "
            "it as 'azure-gpu-platform:gpuPools'.",
        )
    ]


def test_the_program_refuses_a_misspelled_namespace_before_registering_anything() -> None:
    stack = stack_config("dev")
    stack["azure-gpu-platfrom:gpuPools"] = stack.pop("azure-gpu-platform:gpuPools")
    run = run_main(stack, stack="dev")
    assert isinstance(run.error, StackConfigError), run.error
    assert run.records == []
    assert run.error.paths == ["azure-gpu-platfrom:gpuPools"]
    assert str(run.error).splitlines()[0] == (
        "invalid stack configuration in stacks/Pulumi.dev.yaml (1 problem; keys are under 'azure-gpu-platform:'; "
        "nothing was deployed):"
    )


def test_unused_keys_are_warned_about_with_the_closest_known_key() -> None:
    found, warnings = foreign_key_findings(
        ["azure-native:locaton", "azure-native:location", "acme:team", "pulumi:disable-default-providers"],
        project="azure-gpu-platform",
        project_keys=PROJECT_KEYS,
    )
    assert found == []
    assert warnings == [
        "acme:team: no provider or part of this program reads this key, it is ignored. Keys of this project are "
        "under 'azure-gpu-platform:'.",
        "azure-native:locaton: the azure-native provider has no config key 'locaton', it is ignored; did you mean "
        "'azure-native:location'?",
    ]


def test_keys_named_by_the_config_are_used() -> None:
    raw = {"kaito": {"workspaces": [{"name": "llama", "modelAccessTokenConfig": "kaito:hfToken"}]}}
    assert referenced_keys(raw) == {"kaito:hfToken"}
    found, warnings = foreign_key_findings(
        ["kaito:hfToken"], project="azure-gpu-platform", project_keys=PROJECT_KEYS, referenced=referenced_keys(raw)
    )
    assert (found, warnings) == ([], [])


def test_provider_config_keys_come_from_the_installed_provider() -> None:
    keys = provider_config_keys("pulumi_azure_native")
    assert keys is not None and {"location", "subscriptionId", "tenantId", "useMsi"} <= keys
    assert provider_config_keys("pulumi_kubernetes") is None  # ships no config/vars.py: any key is accepted


def test_the_shipped_stacks_have_no_unused_key() -> None:
    for path in sorted(STACKS_DIR.glob("Pulumi.*.yaml")):
        keys = stack_config(path.name.split(".")[1])
        found, warnings = foreign_key_findings(
            keys, project="azure-gpu-platform", project_keys=PROJECT_KEYS, referenced=referenced_keys(keys)
        )
        assert (found, warnings) == ([], []), path.name


# ------------------------------------------------------------------------------------------------ 5. label keys


@pytest.mark.parametrize(
    ("key", "path", "message"),
    [
        (
            "team name",
            'gpuPools[0].labels["team name"]',
            "not a valid Kubernetes label key: a label key is an optional DNS-subdomain prefix (lowercase, ≤253 "
            "characters) and '/', then a name of ≤63 letters, digits, '-', '_' or '.', starting and ending with a "
            "letter or digit, e.g. example.com/team.",
        ),
        (
            "kubernetes.azure.com/team",
            'gpuPools[0].labels["kubernetes.azure.com/team"]',
            "under 'kubernetes.azure.com/', a prefix AKS reserves for its own node labels: AKS refuses the node pool. "
            "Use your own prefix, e.g. example.com/team.",
        ),
        (
            "kubernetes.io/role",
            'gpuPools[0].labels["kubernetes.io/role"]',
            "under 'kubernetes.io/', a prefix AKS reserves for its own node labels: AKS refuses the node pool. Use "
            "your own prefix, e.g. example.com/team.",
        ),
        (
            "topology.kubernetes.io/zone",
            'gpuPools[0].labels["topology.kubernetes.io/zone"]',
            "a label AKS sets itself on every node and refuses to change. Use your own key.",
        ),
        ("x" * 64, f"gpuPools[0].labels.{'x' * 64}", None),
    ],
)
def test_node_label_keys_are_checked_as_kubernetes_and_aks_do(key: str, path: str, message: str | None) -> None:
    found = problems(config(gpuPools=[{**T4, "labels": {key: "a"}}]))
    assert list(found) == [path]
    if message is not None:
        assert found[path] == message
    else:
        assert found[path].startswith("not a valid Kubernetes label key")


def test_valid_label_keys_pass() -> None:
    labels = {"example.com/team": "ml", "team": "ml", "nvidia.com/gpu.workload.config": "vm-passthrough"}
    cfg = validate_stack_config(config(gpuPools=[{**T4, "labels": labels}]), stack_file="stacks/Pulumi.dev.yaml")
    assert cfg.gpuPools[0].labels == labels


# ---------------------------------------------------------------------------- 6. AMD sizes and the NVIDIA stack


def test_amd_pool_under_the_nvidia_operator_with_time_slicing_is_refused() -> None:
    pool = {**MI300X, "sharing": {"timeSlicing": {"replicas": 4}}}
    found = problems(config(gpuPools=[pool], gpuOperator={"enabled": True}))
    assert sorted(found) == ["gpuPools[0].sharing", "gpuPools[0].vmSize"]
    needs = (
        "AMD GPUs need the AMD GPU Operator (its driver and ROCm device plugin advertise amd.com/gpu), which this "
        "platform does not install, and AKS installs no driver for them (MicrosoftDocs/azure-aks-docs "
        "articles/aks/use-amd-gpus.md)"
    )
    assert found["gpuPools[0].vmSize"] == (
        "Standard_ND96isr_MI300X_v5 has AMD GPUs (AMD Instinct MI300X 192 GiB), and NVIDIA's GPU operator "
        "(gpuOperator.enabled) manages every Linux GPU pool here: it installs NVIDIA drivers and device plugins only, "
        f"so these GPUs would stay unusable. {needs}; use an NVIDIA size in this cluster."
    )
    assert found["gpuPools[0].sharing"] == (
        "Standard_ND96isr_MI300X_v5 has AMD GPUs (AMD Instinct MI300X 192 GiB): timeSlicing is a feature of NVIDIA's "
        f"device plugin and does nothing on AMD GPUs. {needs}; remove sharing."
    )


def test_amd_pool_with_the_aks_driver_is_refused() -> None:
    found = problems(config(gpuPools=[MI300X]))
    assert list(found) == ["gpuPools[0].vmSize"]  # the key written; driver is the default's
    assert found["gpuPools[0].vmSize"].startswith(
        "driver is not set, and the default driver here is aks: Standard_ND96isr_MI300X_v5 has AMD GPUs (AMD "
        "Instinct MI300X 192 GiB): AKS creates an AMD GPU pool only with "
        "the driver install skipped (gpuProfile.driver None), and nothing here would install one."
    )


def test_amd_pool_on_azure_linux_is_refused() -> None:
    found = problems(config(gpuPools=[{**MI300X, "osSku": "AzureLinux"}]))
    assert found["gpuPools[0].osSku"].endswith(
        "AKS supports AMD GPU pools on Ubuntu only, not AzureLinux. Allowed: Ubuntu, Ubuntu2204."
    )


# ------------------------------------------------------------------------------------------------ 7. tasksPerGpu


def test_task_gpu_amount_is_exact_up_to_the_bound_and_refused_past_it() -> None:
    assert task_gpu_amount(MAX_TASKS_PER_GPU) == "0.000969"
    assert int(1 / float(task_gpu_amount(MAX_TASKS_PER_GPU))) == MAX_TASKS_PER_GPU
    with pytest.raises(ValueError, match="from 2 to 1031, got 1032"):
        task_gpu_amount(MAX_TASKS_PER_GPU + 1)


@pytest.mark.parametrize("value", [100000, 1032, 1e308])
def test_huge_tasks_per_gpu_is_a_config_error_not_a_crash(value: float) -> None:
    prod = {k.split(":", 1)[1]: v for k, v in stack_config("prod").items() if k.startswith("azure-gpu-platform:")}
    clusters = prod["databricks"]["clusters"]
    index = next(i for i, c in enumerate(clusters) if c.get("tasksPerGpu") is not None)
    clusters[index]["tasksPerGpu"] = value
    found = problems(prod)
    path = f"databricks.clusters[{index}].tasksPerGpu"
    assert list(found) == [path]
    assert found[path].startswith("tasksPerGpu must be at most 1031, got ")


# ---------------------------------------------------------------------------------------------------- 9. regions


@pytest.mark.parametrize(
    ("location", "message"),
    [
        (
            "westeurpoe",
            "'westeurpoe' is not an Azure region; did you mean westeurope? (region names are lowercase, no spaces: "
            "az account list-locations -o table lists them; gpu_catalog/facts/azure_regions.json).",
        ),
        (
            "West Europe",
            "'West Europe' is a display name; write westeurope (region names are lowercase, no spaces: az account "
            "list-locations -o table lists them; gpu_catalog/facts/azure_regions.json).",
        ),
    ],
)
def test_a_misspelled_region_is_refused_with_the_closest_name(location: str, message: str) -> None:
    assert problems(config(location=location)) == {"location": message}


# ------------------------------------------------------------------------------------------------- 10. messages


def test_an_unquoted_version_gets_a_hint_to_quote_it() -> None:
    found = problems(config(cluster={"kubernetesVersion": 1.3}))
    assert found == {
        "cluster.kubernetesVersion": "must be a string, and YAML read 1.3 as a number: an unquoted 1.30 is the number "
        '1.3 (the trailing zero is lost). Quote it: kubernetesVersion: "1.30".'
    }


def test_an_unknown_minimum_size_lists_the_closest_sizes_only() -> None:
    found = problems(config(policy={"gpu-size-minimum": {"minimumSize": "Standard_NC6s_v4"}}))
    assert found == {
        "policy.gpu-size-minimum.minimumSize": "'Standard_NC6s_v4' is not a catalog size; closest: Standard_NC6s_v3, "
        "Standard_NC6s_v2, Standard_NV16as_v4."
    }


def test_yaml_booleans_are_shown_as_yaml_and_no_value_twice() -> None:
    found = problems(config(environment=True, gpuOperator={"enabled": "yes please"}))
    assert found == {
        "environment": "Input should be a valid string (got true).",
        "gpuOperator.enabled": "Input should be a valid boolean, unable to interpret input (got 'yes please').",
    }
    prod = {k.split(":", 1)[1]: v for k, v in stack_config("prod").items() if k.startswith("azure-gpu-platform:")}
    cluster = next(c for c in prod["databricks"]["clusters"] if c.get("tasksPerGpu") is not None)
    cluster["tasksPerGpu"] = 1.5
    message = next(iter(problems(prod).values()))
    assert message.count("1.5") == 1


# --------------------------------------------------------------------------------- 8. one error hides no other


def test_a_budget_or_policy_mistake_does_not_hide_the_pool_rules() -> None:
    data = config(
        budget={"monthlyUsd": -1},
        policy={"gpu-size-minimum": 5},
        gpuPools=[{**T4, "vmSize": "Standard_NV32as_v4"}, {**T4, "name": "t4b", "count": "two"}],
    )
    found = problems(data)
    assert list(found) == [
        "gpuPools[1].count",
        "policy.gpu-size-minimum",
        "gpuPools[0].vmSize",
        "budget.monthlyUsd",
    ]
    assert found["gpuPools[0].vmSize"].startswith("Standard_NV32as_v4 (AMD Radeon Instinct MI25 16 GiB) was retired")
    # Rules on a section that has a malformed key are not run on its stand-ins (gpuPools[1] without its count).
    assert not any(path.startswith("gpuPools[1].") and path != "gpuPools[1].count" for path in found)


# ------------------------------------------------------------------------------------ patterns are said in words


def _patterns(schema: object) -> set[str]:
    if isinstance(schema, dict):
        found = {schema["pattern"]} if isinstance(schema.get("pattern"), str) else set()
        return found.union(*(_patterns(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_patterns(v) for v in schema))
    return set()


def test_every_pattern_of_the_models_is_worded() -> None:
    patterns = _patterns(StackConfig.model_json_schema())
    assert patterns, "the models use patterns"
    assert sorted(patterns - set(PATTERN_WORDS)) == []


def test_a_pattern_refusal_never_prints_a_regex() -> None:
    found = problems(config(environment="Dev_1", gpuOperator={"namespace": "GPU"}, cluster={"name": "-x"}))
    assert found == {
        "environment": "must be lowercase letters, digits and '-', starting with a letter, ≤16 characters "
        "(got 'Dev_1').",
        "gpuOperator.namespace": "must be a Kubernetes namespace: ≤63 lowercase letters, digits and '-', starting "
        "and ending with a letter or digit (got 'GPU').",
        "cluster.name": "must be letters, digits, '-' and '_', starting with a letter or digit (got '-x').",
    }


def test_the_os_sku_literals_of_the_model_are_the_rules_lists() -> None:
    """pydantic needs literal types; the values are the rules' (rules/aks.py), checked here so they cannot drift."""
    import typing

    from rules.aks import LINUX_OS_SKUS, WINDOWS_OS_SKUS
    from stack_config.models import LinuxOsSku, WindowsOsSku

    assert (typing.get_args(LinuxOsSku), typing.get_args(WindowsOsSku)) == (LINUX_OS_SKUS, WINDOWS_OS_SKUS)
