"""What ``import composition.platform, stack_config`` costs against the Pulumi SDK modules it needs.

The anchor is a process importing exactly the ``pulumi*`` modules (pulumi, pulumi_azure_native's submodules,
pulumiverse_time, …) that our import leaves loaded: what any program registering the same resources pays. The ratio
is CPU time (user+sys of the child, start-up included on both sides), the median of ``--repeat`` interleaved runs. It is
recorded, not gated: the 1.3× target is retired (pydantic, the stack config's chosen library, alone uses the whole
allowance: the instruction split below).
``python -X importtime`` attributes our side's own time by owner: pydantic (the stack-config models' library), our
stack config, composition and components (their class construction included), the catalog and rules
(``gpu_catalog``, ``rules``), the SDKs.

Both sides import compiled bytecode, as a program does from its second run on: the children run with
``PYTHONPYCACHEPREFIX`` in ``.venv/pycache`` (nothing is cached outside ``.venv``) and without
``PYTHONDONTWRITEBYTECODE``, and each side is imported once before the measured runs. Without that, a machine that sets
``PYTHONDONTWRITEBYTECODE=1`` (these do) compiles every one of our modules from source on every run while the SDKs'
bytecode, compiled by pip at install, is read from ``site-packages``: a difference of installation, not of imports.

CPU time on these machines swings (the same code measured 1.42 and 2.11 in one session), so the executed
instructions of each side (valgrind cachegrind without cache simulation, ``I refs``: the same count on every run) are
printed beside the time ratio. A third count, the SDK modules and then every pydantic, pydantic_core,
annotated_types and typing_inspection module our import loads, splits the ratio into what pydantic's import adds
(what no change to our own modules removes while the stack config is pydantic models, as DESIGN.md has it:
``stack YAML → pydantic models → components``) and the rest: our modules, with the pydantic model classes and
dataclasses they create. Skipped with ``--no-instructions`` or without ``valgrind`` on PATH; ~15 s a count.

    python bench/bench_platform_imports.py [--repeat 5] [--no-instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PY, PYCACHE, ROOT, emit_result, executed_instructions, header, use_compiled_bytecode

OURS = "import composition.platform, stack_config"
SDK_TOPS = ("pulumi", "pulumi_azure_native", "pulumi_kubernetes", "pulumiverse_time", "pulumi_databricks")
PYDANTIC_TOPS = ("pydantic", "pydantic_core", "annotated_types", "typing_inspection")
OTHER = "other (stdlib, yaml, grpc, protobuf, …)"
CPU = "\nimport resource\nru = resource.getrusage(resource.RUSAGE_SELF)\nprint(ru.ru_utime + ru.ru_stime)"
OWNERS = (
    ("pydantic", re.compile(r"^(pydantic|pydantic_core|annotated_types|typing_inspection)(\.|$)")),
    ("our stack config, composition and components", re.compile(r"^(stack_config|composition|components)(\.|$)")),
    ("our catalog and rules (gpu_catalog, rules)", re.compile(r"^(gpu_catalog|rules)(\.|$)")),
    ("Pulumi SDKs", re.compile(r"^(pulumi|pulumi_[a-z_]+|pulumiverse_time)(\.|$)")),
)


def child_env() -> dict[str, str]:
    """The environment of every child: compiled bytecode kept in ``.venv/pycache`` (module docstring)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True, env=child_env())


def _cpu(code: str) -> float:
    out = _run([PY, "-c", code + CPU]).stdout
    return float(out.split()[-1])


def instructions(valgrind: str, code: str) -> int:
    """Instructions a child running ``code`` executes, start-up included (valgrind cachegrind, no cache simulation)."""
    return executed_instructions(valgrind, [PY, "-c", code], env=child_env())


def importing(modules: list[str]) -> str:
    """Code that imports exactly ``modules``, in order."""
    return f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)"


def instruction_counts(valgrind: str, anchor: str, pydantic: str) -> dict[str, Any]:
    """Ours, the SDK modules (``anchor``), and the SDK modules then the pydantic modules our import loads
    (``pydantic``): the ratio, and what pydantic's import and the rest of ours add, as fractions of the SDK's count."""
    counts = {
        "ours": instructions(valgrind, OURS),
        "sdk": instructions(valgrind, anchor),
        "sdk_then_pydantic": instructions(valgrind, f"{anchor}\n{pydantic}"),
    }
    sdk = counts["sdk"]
    return {
        "counts": counts,
        "ratio": counts["ours"] / sdk,
        "pydantic_share": (counts["sdk_then_pydantic"] - sdk) / sdk,
        "rest_share": (counts["ours"] - counts["sdk_then_pydantic"]) / sdk,
    }


def sdk_modules(tops: tuple[str, ...] = SDK_TOPS) -> list[str]:
    """The modules of the ``tops`` packages our import leaves loaded, in import order."""
    loaded = f"[m for m in sys.modules if m.split('.')[0] in {tops!r}]"
    code = f"import sys, json\n{OURS}\nprint(json.dumps({loaded}))"
    out = _run([PY, "-c", code]).stdout
    return list(json.loads(out.splitlines()[-1]))


def by_owner() -> dict[str, float]:
    """Self time (ms) per owner from ``-X importtime`` of our import."""
    cmd = [PY, "-X", "importtime", "-c", OURS]
    err = _run(cmd).stderr
    out: dict[str, float] = {name: 0.0 for name, _ in OWNERS}
    out[OTHER] = 0.0
    for line in err.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[0].startswith("import time:") or "self" in parts[0]:
            continue
        self_us, module = int(parts[0].split(":")[1]), parts[2].strip()
        owner = next(
            (name for name, pattern in OWNERS if pattern.match(module)), "other (stdlib, yaml, grpc, protobuf, …)"
        )
        out[owner] += self_us / 1000
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-instructions", action="store_true", help="skip the valgrind instruction counts")
    args = ap.parse_args(argv)
    header("imports: composition.platform + stack_config vs. the SDK modules they import")
    modules = sdk_modules()
    anchor = importing(modules)
    for code in (OURS, anchor):  # compile both sides' bytecode before measuring (module docstring)
        _cpu(code)
    ours: list[float] = []
    sdk: list[float] = []
    for rep in range(args.repeat):
        for side in ("ours", "sdk") if rep % 2 == 0 else ("sdk", "ours"):
            (ours if side == "ours" else sdk).append(_cpu(OURS if side == "ours" else anchor))
    o, s = statistics.median(ours), statistics.median(sdk)
    owners = by_owner()
    result: dict[str, Any] = {
        "sdk_modules": len(modules),
        "ours_cpu_s": {"median": o, "min": min(ours), "max": max(ours)},
        "sdk_cpu_s": {"median": s, "min": min(sdk), "max": max(sdk)},
        "ratio": o / s,
        "owners_ms": owners,
        "databricks_imported": any(m.startswith("pulumi_databricks") for m in modules),
    }
    print(
        f"  ours {o:.3f} s CPU (min {min(ours):.3f}, max {max(ours):.3f}); the {len(modules)} SDK modules alone "
        f"{s:.3f} s (min {min(sdk):.3f}, max {max(sdk):.3f}); ratio {o / s:.2f} (recorded, not gated)"
    )
    print("  own import time by owner (python -X importtime, ms):")
    for name, ms in owners.items():
        print(f"    {name:<52} {ms:7.1f}")
    valgrind = None if args.no_instructions else shutil.which("valgrind")
    if valgrind is not None:
        ins = instruction_counts(valgrind, anchor, importing(sdk_modules(PYDANTIC_TOPS)))
        result["instructions"] = ins
        c = ins["counts"]
        print(
            f"  executed instructions (valgrind): ours {c['ours'] / 1e9:.3f} G, the SDK modules alone "
            f"{c['sdk'] / 1e9:.3f} G: ratio {ins['ratio']:.2f}, of which pydantic's import "
            f"{ins['pydantic_share']:.2f} and the rest (our modules, their models and classes, the collector) "
            f"{ins['rest_share']:.2f} of the SDK's"
        )
    emit_result("platform_imports", result)
    return 0


if __name__ == "__main__":
    use_compiled_bytecode()  # the children read compiled bytecode, as a user's second run does
    raise SystemExit(main())
