"""Issue 10: the preflight reads a stack file as the Pulumi CLI does (encodings, duplicate keys, YAML syntax)."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from preflight.stackfile import StackFileError, decode, load_stack_settings, read_stack_file
from tests.components.harness import REPO_ROOT, STACKS_DIR

DEV = (STACKS_DIR / "Pulumi.dev.yaml").read_text(encoding="utf-8")
PROJECT = "azure-gpu-platform"


def refusal(path: Path) -> list[str]:
    with pytest.raises(StackFileError) as err:
        read_stack_file(path, label="Pulumi.x.yaml", project=PROJECT)
    return str(err.value).splitlines()


def header(count: int) -> str:
    return (
        f"invalid stack configuration in Pulumi.x.yaml ({count} problem{'s' if count != 1 else ''}; keys are under "
        "'azure-gpu-platform:'; nothing was deployed):"
    )


# ----------------------------------------------------------------------------------------------------- 3. encodings


def test_utf8_with_and_without_bom_reads_the_same(tmp_path: Path) -> None:
    plain, bom = tmp_path / "plain.yaml", tmp_path / "bom.yaml"
    plain.write_bytes(DEV.encode("utf-8"))
    bom.write_bytes(codecs.BOM_UTF8 + DEV.encode("utf-8"))
    a = read_stack_file(plain, label="x", project=PROJECT)
    b = read_stack_file(bom, label="x", project=PROJECT)
    assert a.doc == b.doc and a.problems == b.problems == []
    assert a.doc["config"]["azure-gpu-platform:environment"] == "dev"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_are_refused_in_one_line(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    data = DEV.encode(codec)
    if codec == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    path.write_bytes(data)
    name = "UTF-32" if "32" in codec else "UTF-16"
    assert refusal(path) == [
        header(1),
        f"  Pulumi.x.yaml: (encoding): the file is {name} (it starts with a {name} byte-order mark); Pulumi reads "
        "stack files as UTF-8. Save it as UTF-8 (with or without BOM) and run again.",
    ]


def test_a_latin1_comment_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    path.write_bytes(DEV.replace("# dev:", "# dév:").encode("latin-1"))
    assert refusal(path) == [
        header(1),
        "  Pulumi.x.yaml: line 1, column 4: byte 0xe9 is not UTF-8 (the file looks saved as Latin-1 or "
        "Windows-1252); Pulumi reads stack files as UTF-8. Save it as UTF-8 and run again.",
    ]


def test_decode_keeps_unicode() -> None:
    assert decode("a: 'é 🚀'\n".encode()) == "a: 'é 🚀'\n"


# -------------------------------------------------------------------------------------------------- 2. duplicates


def test_a_duplicate_key_is_reported_with_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text(
        DEV.replace(
            "      vmSize: Standard_NC4as_T4_v3\n",
            "      vmSize: Standard_NV32as_v4\n      vmSize: Standard_NC4as_T4_v3\n",
        ),
        encoding="utf-8",
    )
    found = read_stack_file(path, label="x", project=PROJECT)
    assert [(p.path, p.message) for p in found.problems] == [
        (
            "gpuPools[0].vmSize",
            "duplicate key: line 31 sets it to Standard_NV32as_v4 and line 32 again to Standard_NC4as_T4_v3; "
            "Pulumi refuses a stack file with a duplicate key. Keep one.",
        )
    ]


def test_a_key_with_and_without_the_namespace_is_a_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text(
        "config:\n  azure-gpu-platform:environment: dev\n  environment: prod\n  azure-native:location: westeurope\n"
        "  azure-native:location: eastus\n",
        encoding="utf-8",
    )
    found = read_stack_file(path, label="x", project=PROJECT)
    assert [(p.path, p.message) for p in found.problems] == [
        (
            "environment",
            "duplicate key: line 2 sets it to dev and line 3 again to prod; Pulumi refuses a stack file with a "
            "duplicate key. Keep one.",
        ),
        (
            "azure-native:location",
            "duplicate key: line 4 sets it to westeurope and line 5 again to eastus; Pulumi refuses a stack file "
            "with a duplicate key. Keep one.",
        ),
    ]


def test_duplicates_do_not_stop_the_read_so_other_problems_are_found_too(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(DEV.replace("  azure-gpu-platform:environment: dev\n", "") + "  budget:\n    monthlyUsd: 1\n")
    settings = load_stack_settings(REPO_ROOT, path)
    assert [p.path for p in settings.problems] == ["budget"]
    assert settings.values["azure-gpu-platform:budget"] == {"monthlyUsd": 1}


# ------------------------------------------------------------------------------------------------------ syntax


def test_a_yaml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text("config:\n  azure-gpu-platform:environment: dev\n   location: westeurope\n", encoding="utf-8")
    assert refusal(path) == [
        header(1),
        "  Pulumi.x.yaml: line 3, column 12: not valid YAML: mapping values are not allowed here.",
    ]


def test_an_unquoted_date_stays_the_string_pulumi_hands_the_program(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text("config:\n  azure-gpu-platform:note: 2026-11-30\n", encoding="utf-8")
    assert read_stack_file(path, label="x", project=PROJECT).doc == {
        "config": {"azure-gpu-platform:note": "2026-11-30"}
    }
