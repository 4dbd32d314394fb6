"""gpu_catalog.json_edit.patch: only the values that differ change; the file's own formatting stays."""

from __future__ import annotations

import json

import pytest

from gpu_catalog.json_edit import patch

TEXT = """{
  "a": 1, "b": ["x", "y"],
  "c": {
    "d": "\\u2014",
    "e": [
      {"f": 1},
      {"f": 2}
    ]
  },
  "g": null
}
"""


def test_an_equal_document_is_the_same_text() -> None:
    assert patch(TEXT, json.loads(TEXT)) == TEXT


def test_a_scalar_an_inline_list_and_a_nested_item_change_in_place() -> None:
    doc = json.loads(TEXT)
    doc["a"], doc["b"], doc["c"]["e"][1]["f"] = 2, ["x"], 3
    assert patch(TEXT, doc) == TEXT.replace('"a": 1', '"a": 2').replace('["x", "y"]', '["x"]').replace(
        '{"f": 2}', '{"f": 3}'
    )


def test_added_keys_follow_their_siblings_and_removed_keys_take_their_comma() -> None:
    doc = json.loads(TEXT)
    del doc["g"]
    doc["c"]["h"] = True
    assert patch(TEXT, doc) == (
        '{\n  "a": 1, "b": ["x", "y"],\n  "c": {\n    "d": "\\u2014",\n    "e": [\n      {"f": 1},\n      {"f": 2}\n'
        '    ],\n    "h": true\n  }\n}\n'
    )


def test_non_json_is_refused() -> None:
    with pytest.raises(ValueError):
        patch("{]", {})
