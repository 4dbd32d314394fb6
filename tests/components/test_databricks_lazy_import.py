"""``pulumi_databricks`` (~385 modules, seconds to import) is loaded only when Databricks resources are created, and
a section's component module only when the stack has the section.

What a build imports shows only in a fresh interpreter (other tests in this process may already have imported the
package): one interpreter per shipped stack (:data:`PROBE`, run once per session, tests/shared_runs.py) builds the
real program on that stack under mocks and reports what was loaded at each step; dev's then imports every component
module, validates prod's stack file and infers the component package's schema (still no ``pulumi_databricks``), then
creates a Databricks workspace (the control: now it is loaded). The tests read its report.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

from tests.shared_runs import shared_python_run

pytestmark = pytest.mark.slow

SECTION_MODULES = (
    "components.azure_policy",
    "components.databricks",
    "components.kaito",
    "components.monitoring",
    "components.nap_pool",
    "composition.monitoring_wiring",
)

PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    stack, section_modules = sys.argv[1], set(json.loads(sys.argv[2]))
    report = {}

    def databricks_loaded():
        return sorted(m for m in sys.modules if m.startswith("pulumi_databricks"))[:3]

    from tests.components.harness import run_stack, stack_config
    report["databricks key"] = any(k.endswith(":databricks") for k in stack_config(stack))
    run = run_stack(stack)
    report["error"] = None if run.error is None else str(run.error)
    report["records"] = len(run.records)
    report["after build"] = databricks_loaded()
    report["sections"] = sorted(m for m in sys.modules if m in section_modules)

    if stack == "dev":
        # Importing every component module and validating a stack file with Databricks clusters (what the
        # preflight does first) loads nothing of pulumi_databricks ...
        import components
        for mod in pkgutil.iter_modules(components.__path__):
            importlib.import_module(f"components.{mod.name}")
        from stack_config.databricks import DatabricksConfig
        DatabricksConfig.model_validate({
            "workspace": {"name": "dbw-gpu"},
            "clusters": [{"name": "t", "nodeTypeId": "Standard_NC24ads_A100_v4", "numWorkers": 1,
                          "singleUserName": "ml-platform@contoso.com"}],
        })
        from stack_config import config_from_stack_yaml, validate_stack_config
        cfg = validate_stack_config(config_from_stack_yaml(stack_config("prod")), stack_file="stacks/Pulumi.prod.yaml")
        report["validated databricks clusters"] = len(cfg.databricks.clusters) if cfg.databricks else 0
        report["after imports and validation"] = databricks_loaded()
        # ... nor does inferring the component package's schema (what `pulumi package add` asks for) ...
        from component_package.provider import provider
        provider()
        report["after the schema"] = databricks_loaded()

        # ... and the control: the probe sees the package once a Databricks component is created.
        import pulumi
        from components.databricks import DatabricksWorkspace, DatabricksWorkspaceArgs

        class M(pulumi.runtime.Mocks):
            def new_resource(self, args):
                return args.name + "-id", dict(args.inputs)
            def call(self, args):
                return {}

        import asyncio
        asyncio.set_event_loop(asyncio.new_event_loop())  # the build above closed its loop
        pulumi.runtime.set_mocks(M(), preview=False)
        DatabricksWorkspace("dbx", DatabricksWorkspaceArgs(url="https://adb-1.2.azuredatabricks.net"))
        report["after the control"] = "pulumi_databricks" in sys.modules
    print(json.dumps(report))
    """
)


def probe(stack: str) -> dict[str, Any]:
    """What the build of ``stack`` loaded, from a fresh interpreter (once per session)."""
    run = shared_python_run(f"lazy-import-{stack}", PROBE, stack, json.dumps(SECTION_MODULES))
    assert run.code == 0, run.stdout + run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def test_importing_components_and_validating_databricks_config_does_not_import_pulumi_databricks():
    report = probe("dev")
    assert report["validated databricks clusters"] > 0
    assert report["after imports and validation"] == []


def test_creating_a_databricks_cluster_does_import_it():
    """The control: the probe above would see the package if anything loaded it."""
    report = probe("dev")
    assert report["after imports and validation"] == []  # not loaded before the control
    assert report["after the control"] is True


def test_an_aks_only_stack_build_never_imports_pulumi_databricks():
    """The real program (``__main__.py``) on the dev stack (no ``databricks`` key) under mocks."""
    report = probe("dev")
    assert report["databricks key"] is False, "dev is meant to be AKS-only"
    assert report["error"] is None
    assert report["records"] > 0, "nothing was registered"
    assert report["after build"] == []


def test_a_stack_with_databricks_does_import_it():
    """The control for the test above: the same probe sees the package once prod (with Databricks) is built."""
    report = probe("prod")
    assert report["error"] is None
    assert report["after build"] != []


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
    report = probe(stack)
    assert report["error"] is None, report["error"]
    assert report["sections"] == expected
