"""rules.node_os.size_os_problem: the OS each GPU size runs on, from AKS's GPU registry as the catalog carries it."""

from __future__ import annotations

import pytest

from rules.node_os import size_os_problem


@pytest.mark.parametrize(
    ("size", "os_type", "os_sku", "allowed", "shown"),
    [
        ("Standard_ND128isr_GB300_v6", "Linux", "AzureLinux", "Ubuntu", "osSKU AzureLinux"),
        ("Standard_ND128isr_NDR_GB200_v6", "Linux", "AzureLinux3", "Ubuntu", "osSKU AzureLinux3"),
        (
            "Standard_NC24lds_xl_RTXPRO6000BSE_v6",
            "Windows",
            "Windows2022",
            "Ubuntu",
            "osType Windows (osSKU Windows2022)",
        ),
        ("Standard_ND96isr_MI300X_v5", "Linux", "AzureLinux", "Ubuntu", "osSKU AzureLinux"),
        ("Standard_NC24ads_A100_v4", "Linux", "CBLMariner", "Ubuntu or Windows or AzureLinux3", "osSKU CBLMariner"),
    ],
)
def test_an_os_the_registry_does_not_name_for_the_size_is_refused(
    size: str, os_type: str, os_sku: str, allowed: str, shown: str
) -> None:
    assert size_os_problem(size, os_type, os_sku) == (
        f"{size} runs on {allowed} node pools only (AKS's GPU registry: Azure/karpenter-provider-azure "
        "pkg/utils/supported-gpus.yaml, in gpu_catalog/catalog.json support.aksGpuRegistry): AKS has no GPU driver or "
        f"image for it on {shown}. Use osType Linux with osSKU Ubuntu, or a size whose entry names the OS."
    )


@pytest.mark.parametrize(
    ("size", "os_type", "os_sku"),
    [
        ("Standard_ND128isr_GB300_v6", "Linux", None),  # AKS's Linux default, Ubuntu
        ("Standard_ND128isr_GB300_v6", "Linux", "Ubuntu2404"),
        ("Standard_NC24ads_A100_v4", "Linux", "AzureLinux"),  # azurelinux3 in its entry
        ("Standard_NC4as_T4_v3", "Windows", "Windows2022"),
        ("Standard_ND128isrG5_GB300_v6", "Linux", "AzureLinux"),  # not in the registry: no evidence either way
        ("Standard_D4ds_v5", "Linux", "AzureLinux"),  # not a GPU size
        ("Standard_ND128isr_GB300_v6", "Linux", "SomeFutureOs"),  # an OS the registry has no name for
        (None, "Linux", "AzureLinux"),
    ],
)
def test_no_finding_without_evidence(size: str | None, os_type: str, os_sku: str | None) -> None:
    assert size_os_problem(size, os_type, os_sku) is None
