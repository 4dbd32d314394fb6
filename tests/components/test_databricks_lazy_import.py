"""``pulumi_databricks`` (~385 modules, seconds to import) is loaded only when Databricks resources are created, and
a section's component module only when the stack has the section.

Each check runs in a fresh interpreter: other tests in this process may already have imported the package.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_importing_components_and_validating_databricks_config_does_not_import_pulumi_databricks():
    proc = run_python(
        """
        import importlib, pkgutil, sys
        import components
        for mod in pkgutil.iter_modules(components.__path__):
            importlib.import_module(f"components.{mod.name}")
        from stack_config.databricks import DatabricksConfig
        DatabricksConfig.model_validate({
            "workspace": {"name": "dbw-gpu"},
            "clusters": [{"name": "t", "nodeTypeId": "Standard_NC24ads_A100_v4", "numWorkers": 1,
                          "singleUserName": "ml-platform@contoso.com"}],
        })
        # Validating a whole stack file that has Databricks clusters (what the preflight does first) is free too.
        from stack_config import config_from_stack_yaml, validate_stack_config
        from tests.components.harness import stack_config
        cfg = validate_stack_config(config_from_stack_yaml(stack_config("prod")), stack_file="stacks/Pulumi.prod.yaml")
        assert cfg.databricks is not None and cfg.databricks.clusters
        loaded = sorted(m for m in sys.modules if m.startswith("pulumi_databricks"))
        print("LOADED", loaded[:3])
        assert not loaded, loaded
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "LOADED []" in proc.stdout


@pytest.mark.slow
def test_creating_a_databricks_cluster_does_import_it():
    """The control: the probe above would see the package if anything loaded it."""
    proc = run_python(
        """
        import sys
        import pulumi
        from components.databricks import DatabricksWorkspace, DatabricksWorkspaceArgs

        class M(pulumi.runtime.Mocks):
            def new_resource(self, args):
                return args.name + "-id", dict(args.inputs)
            def call(self, args):
                return {}

        pulumi.runtime.set_mocks(M(), preview=False)
        assert "pulumi_databricks" not in sys.modules
        DatabricksWorkspace("dbx", DatabricksWorkspaceArgs(url="https://adb-1.2.azuredatabricks.net"))
        print("LOADED", "pulumi_databricks" in sys.modules)
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "LOADED True" in proc.stdout


@pytest.mark.slow
def test_an_aks_only_stack_build_never_imports_pulumi_databricks():
    """The real program (``__main__.py``) on the dev stack (no ``databricks`` key) under mocks."""
    proc = run_python(
        """
        import sys
        from tests.components.harness import run_stack, stack_config
        assert not any(k.endswith(":databricks") for k in stack_config("dev")), "dev is meant to be AKS-only"
        run = run_stack("dev")
        assert run.error is None, run.error
        assert run.records, "nothing was registered"
        print("LOADED", sorted(m for m in sys.modules if m.startswith("pulumi_databricks"))[:3])
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "LOADED []" in proc.stdout


@pytest.mark.slow
def test_a_stack_with_databricks_does_import_it():
    """The control for the test above: the same probe sees the package once prod (with Databricks) is built."""
    proc = run_python(
        """
        import sys
        from tests.components.harness import run_stack
        run = run_stack("prod")
        assert run.error is None, run.error
        print("LOADED", "pulumi_databricks" in sys.modules)
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "LOADED True" in proc.stdout


SECTION_MODULES = (
    "components.azure_policy",
    "components.databricks",
    "components.kaito",
    "components.monitoring",
    "components.nap_pool",
    "composition.monitoring_wiring",
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stack", "expected"),
    [
        ("dev", []),  # AKS GPU pools and the device plugin only
        (
            "staging",
            ["components.kaito", "components.monitoring", "components.nap_pool", "composition.monitoring_wiring"],
        ),
        (
            "prod",
            [
                "components.azure_policy",
                "components.databricks",
                "components.kaito",
                "components.monitoring",
                "composition.monitoring_wiring",
            ],
        ),
    ],
)
def test_a_program_imports_the_component_modules_of_the_sections_its_stack_has(stack: str, expected: list[str]):
    """The real program on each stack under mocks: dev (no gpuNodePools, kaito, databricks, azurePolicy, monitoring)
    loads none of those components; staging and prod load exactly theirs."""
    proc = run_python(
        f"""
        import sys
        from tests.components.harness import run_stack
        run = run_stack({stack!r})
        assert run.error is None, run.error
        print("LOADED", sorted(m for m in sys.modules if m in {SECTION_MODULES!r}))
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"LOADED {expected!r}" in proc.stdout
