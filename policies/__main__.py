"""Entry point of the CrossGuard pack ``azure-gpu-guardrails``: the same file in the repository and in a built pack.

The Pulumi engine starts a Python pack as ``python -u -m pulumi.policy <engine-address> <pack folder>`` with the
working directory in the pack folder; ``runpy`` runs this file with that folder first on ``sys.path``. The policies
import the GPU catalog (``gpu_catalog``) and the rules layer (``rules``) as top-level packages, so the folder that holds
``policies/`` next to them goes first on ``sys.path``:

- in the repository (``--policy-pack policies``) this file is ``policies/__main__.py`` and that folder is the
  repository root, the parent folder;
- in a built pack (``make pack``, ``python -m policies._build_pack``: what ``pulumi policy publish`` uploads) this file
  is the pack's top-level ``__main__.py`` and the packages were copied next to it: that folder is the pack itself, and
  nothing outside it is used.

``PolicyPack(...)`` serves gRPC, prints its port on the first stdout line and blocks. Before it serves, the cyclic
garbage collector is paused for the life of the process: the pack's requests make no reference cycles
(``policies/_collector.py``).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGES_ROOT = HERE if (HERE / "policies" / "__init__.py").is_file() else HERE.parent
if str(PACKAGES_ROOT) not in sys.path:
    sys.path.insert(0, str(PACKAGES_ROOT))

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from policies._collector import pause_cyclic_collector  # noqa: E402
from policies._exemptions import set_engine  # noqa: E402
from policies.pack import ALL_POLICIES, PACK_NAME  # noqa: E402

set_engine(sys.argv[1])  # exempted violations are logged to the engine (policies/_exemptions.py)
pause_cyclic_collector()  # after everything is loaded (policies/_collector.py)

PolicyPack(
    PACK_NAME,
    policies=list(ALL_POLICIES),
    enforcement_level=EnforcementLevel.ADVISORY,
    description="GPU guard rails for Azure: AKS GPU node pools, Databricks GPU clusters and KAITO workspaces.",
)
