"""Issue 21's catalog update: the pack's verdict on a raw AgentPool for every size the update added or changed.

Each expectation is what the sources recorded in gpu_catalog/catalog.json say (repository, path, commit per row):
a size AKS's GPU registry knows is never refused as unknown; fractional sizes are below the default floor; retired
families are refused as retired, with Microsoft's migration target.
"""

from __future__ import annotations

import pytest

from tests.policies.test_acceptance_sizes import mandatory_violations

FLOOR = "gpu-size-minimum"
RETIRED = "gpu-size-not-retired"
NVV4 = "gpu-size-no-nvv4"
AKS = "gpu-size-aks-supported"

VERDICTS: dict[str, list[str]] = {
    # NCv6 GA names (nc-rtxpro6000-bse-v6-series-overview.md; AKS CHANGELOG 2026-06-19; supported-gpus.yaml)
    "Standard_NC24lds_xl_RTXPRO6000BSE_v6": [FLOOR],  # 1/4 GPU
    "Standard_NC36ds_xl_RTXPRO6000BSE_v6": [FLOOR],
    "Standard_NC36lds_xl_RTXPRO6000BSE_v6": [FLOOR],
    "Standard_NC72ds_xl_RTXPRO6000BSE_v6": [FLOOR],  # 1/2 GPU
    "Standard_NC72lds_xl_RTXPRO6000BSE_v6": [FLOOR],
    "Standard_NC144ds_xl_RTXPRO6000BSE_v6": [],  # 1 GPU
    "Standard_NC144lds_xl_RTXPRO6000BSE_v6": [],
    "Standard_NC288ds_xl_RTXPRO6000BSE_v6": [],  # 2 GPUs
    "Standard_NC288lds_xl_RTXPRO6000BSE_v6": [],
    # NCv6 preview names: "no longer work correctly", not in AKS's registry
    "Standard_NC128ds_xl_RTXPRO6000BSE_v6": [AKS, RETIRED],
    "Standard_NC320lds_xl_RTXPRO6000BSE_v6": [AKS, RETIRED],
    # NVv3 and NVv4, complete and retired on 2026-09-30
    "Standard_NV12hs_v3": [FLOOR, RETIRED],
    "Standard_NV24ms_v3": [FLOOR, RETIRED],
    "Standard_NV32ms_v3": [FLOOR, RETIRED],
    "Standard_NV48s_v3": [FLOOR, RETIRED],
    "Standard_NV4ahs_v4": [FLOOR, NVV4, RETIRED],
    "Standard_NV8ahs_v4": [FLOOR, NVV4, RETIRED],
    "Standard_NV16ahs_v4": [FLOOR, NVV4, RETIRED],
    "Standard_NV32ahs_v4": [NVV4, RETIRED],
    # sizes AKS's GPU registry knows (NCads_A10_v4: whole A10 GPUs, the only evidence read; a guess of partitions was
    # no ground for a refusal)
    "Standard_NC8ads_A10_v4": [],
    "Standard_NC16ads_A10_v4": [],
    "Standard_NC32ads_A10_v4": [],
    "Standard_ND96is_H100_v5": [],
    "Standard_ND96is_noib_H100_v5": [],
    "Standard_ND96is_flex_H100_v5": [],
    "Standard_ND96isf_H100_v5": [],
    "Standard_ND96isrf_H100_v5": [],
    "Standard_ND96is_H200_v5": [],
    "Standard_ND96isf_H200_v5": [],
    "Standard_ND96isrf_H200_v5": [],
    "Standard_ND96ams_v4": [],
    "Standard_ND96ams_A100_v4": [],
    "Standard_ND96ams_A100_flex_v4": [],
    "Standard_ND96amsf_A100_v4": [],
    "Standard_ND96amsrf_A100_v4": [],
    "Standard_ND112amsr_A100_v4": [],
    "Standard_ND120amsr_A100_v4": [],
    "Standard_ND112asr_A100_v4": [],
    "Standard_ND120asr_A100_v4": [],
    "Standard_ND96is_MI300X_v5": [],
    "Standard_ND40s_v3": [],
    "Standard_NV24ads_V710_v5": [],  # AMD, in the registry (was refused as not AKS-supported)
    "Standard_ND128isr_NDR_GB200_v6": [],
    "Standard_ND128isr_GB300_v6": [],
    "Standard_NC6_Promo": [FLOOR, RETIRED],  # promo names retire with their family
    "Standard_NV24r": [FLOOR, RETIRED],
}


@pytest.mark.parametrize(("size", "rules"), sorted(VERDICTS.items()))
def test_pack_verdict_on_a_raw_agent_pool(size: str, rules: list[str]) -> None:
    assert sorted({v.split(":")[0] for v in mandatory_violations(size)}) == rules


def test_preview_name_is_refused_with_its_ga_replacement() -> None:
    found = [v for v in mandatory_violations("Standard_NC256ds_xl_RTXPRO6000BSE_v6") if v.startswith(RETIRED)]
    assert found == [
        "gpu-size-not-retired: vmSize: Standard_NC256ds_xl_RTXPRO6000BSE_v6 (NVIDIA RTX PRO 6000 Blackwell Server "
        "Edition 96 GB (SR-IOV)) was retired by Microsoft on 2026-06-03: new VMs of this size cannot be deployed and "
        "running ones are deallocated. Microsoft's migration target: Standard_NC288ds_xl_RTXPRO6000BSE_v6."
    ]


def test_nvv3_is_refused_as_retired_on_2026_09_30() -> None:
    found = [v for v in mandatory_violations("Standard_NV24ms_v3") if v.startswith(RETIRED)]
    assert len(found) == 1 and "was retired by Microsoft on 2026-09-30" in found[0]
