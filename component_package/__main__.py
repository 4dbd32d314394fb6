"""Entry point of the component package's provider plugin.

The Pulumi CLI's Python language host runs ``<venv>/bin/python <this directory> <engine address> [flags]``: Python
runs this file with this directory (not the repository) on ``sys.path``. The components are the repository's
(``components/``, ``rules/``, ``gpu_catalog/``), one level up; the repository's root goes first on ``sys.path`` so they
are imported from there, whether the plugin was added from a local path or from a git reference (which clones the
whole repository). :func:`~component_package.provider.serve` prints the gRPC port on stdout and serves until the
engine stops it.
"""

import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.path.insert(0, str(REPOSITORY))
    from component_package.provider import serve

    serve()
