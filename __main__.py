"""The Pulumi program: load and validate the stack config, build the platform, export the output contract."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from composition.platform import build_platform, export_contract
from composition.stack_file import load_stack_config

cfg = load_stack_config()  # raises StackConfigError listing every problem, before any resource is registered
export_contract(build_platform(cfg))
