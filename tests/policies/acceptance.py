"""Issue 2's acceptance sizes, shared by the in-process policy tests and the over-the-wire pack test."""

REJECTED = [
    "Standard_NV16as_v4",
    "standard_nv32as_v4",
    "Standard_NC6",
    "Standard_NC6s_v2",
    "Standard_ND6s",
    "Standard_NV12s_v3",
    "Standard_NV6ads_A10_v5",
    "Standard_NC6s_v3",
    "Standard_NC99zz_v9",
]
"""Each gets at least one mandatory violation on an AgentPool."""

ACCEPTED = [
    "Standard_NC4as_T4_v3",
    "Standard_NC24ads_A100_v4",
    "STANDARD_NC24ADS_A100_V4",
    "Standard_ND96isr_H100_v5",
    "Standard_NC40ads_H100_v5",
    "Standard_D4s_v5",
]
"""Each gets no violation at all on an AgentPool."""
