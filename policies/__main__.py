"""Entry point of the CrossGuard pack ``azure-gpu-guardrails``.

The Pulumi engine starts it as ``python -u -m pulumi.policy <engine-address> <this folder>`` with the working
directory in ``policies/`` (``runpy`` runs this file; only this folder is on ``sys.path``). The pack reuses the
project's GPU catalog, so it puts the repository root on ``sys.path`` first and then imports ``gpu_catalog`` and
``policies.*`` from there. ``PolicyPack(...)`` serves gRPC, prints its port on the first stdout line and blocks.
"""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from policies.pack import ALL_POLICIES, PACK_NAME  # noqa: E402

PolicyPack(
    PACK_NAME,
    policies=list(ALL_POLICIES),
    enforcement_level=EnforcementLevel.ADVISORY,
    description="GPU guard rails for Azure: AKS GPU node pools, Databricks GPU clusters and KAITO workspaces.",
)
