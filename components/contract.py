"""The output contract, as the platform's components use it: defined once in the standalone package
:mod:`agp_contract` (installable on its own from a git reference, ``docs/output-contract.md``) and re-exported here.
"""

from agp_contract import *  # noqa: F403  (the contract's public names, one definition)
