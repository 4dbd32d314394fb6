"""The floor pack: pulumi_policy serving as many policies as ``policies/`` (resource and stack), each a no-op.

Started like any pack (``python -m pulumi.policy <engine> bench/floor_pack``); the policy counts come from the real
pack's list, so the two always match. The floor's throughput is the best this SDK allows with this many policies.
It pauses the cyclic garbage collector as the real pack's entry point does (``policies/_collector.py``), so the two
processes differ only in what the policies do.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from bench.floor import floor_policies  # noqa: E402
from policies._collector import pause_cyclic_collector  # noqa: E402

POLICIES = floor_policies()
pause_cyclic_collector()

PolicyPack(
    "floor",
    policies=POLICIES,
    enforcement_level=EnforcementLevel.ADVISORY,
    description="no-op policies, as many as azure-gpu-guardrails has",
)
