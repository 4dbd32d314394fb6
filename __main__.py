"""The Pulumi program: load and validate the stack config, build the platform (or, with ``fleet``, every member's
platform and the fleet), export the output contract."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from composition.platform import build_platform, export_contract
from composition.stack_file import load_stack_config

cfg = load_stack_config()  # raises StackConfigError listing every problem, before any resource is registered
if cfg.fleet is None:
    export_contract(build_platform(cfg))
else:  # every member's platform and the fleet over them (docs/fleet.md)
    from composition.fleet import build_fleet, export_fleet

    export_fleet(build_fleet(cfg))
