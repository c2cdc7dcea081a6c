"""Markers are data: loading, conditions, and adding a language without code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jw_rag.chunkers import SemanticChunker, load_markers, marker_languages
from jw_rag.errors import ConfigError


def test_bundled_languages() -> None:
    assert set(marker_languages()) >= {"en", "es", "pt"}


@pytest.mark.parametrize(
    ("lang", "text", "continuation", "closure"),
    [
        ("en", "So, what happened next?", "So", None),
        ("en", "So many people came.", None, None),
        ("en", "Yet another example.", None, None),
        ("en", "Instead of fear, hope.", None, None),
        ("en", "Therefore, we conclude.", None, "Therefore"),
        ("es", "Mas tarde", None, None),
        ("es", "Así como", None, None),
        ("es", "Así, vemos que", None, "Así"),
        ("es", "Así que no temamos.", None, "Así que"),
        ("es", "Por lo tanto, sí.", None, "Por lo tanto"),
        ("es", "Sin embargo,", "Sin embargo", None),
        ("pt", "Mas ele disse", "Mas", None),
        ("pt", "Logo, devemos", None, "Logo"),
        ("pt", "Logo no início", None, None),
        ("pt", "Segue-se que", "Segue-se", None),
    ],
)
def test_marker_conditions(
    lang: str, text: str, continuation: str | None, closure: str | None
) -> None:
    markers = load_markers(lang)
    assert markers is not None
    assert markers.continuation(text) == continuation
    assert markers.closure(text) == closure


def test_a_language_is_added_with_data_only(tmp_path: Path) -> None:
    data = {
        "schema_version": 1,
        "languages": {
            "de": {
                "continuation": ["Jedoch", {"marker": "Also", "followed_by": ","}],
                "closure": ["Daher"],
            }
        },
    }
    path = tmp_path / "markers.json"
    path.write_text(json.dumps(data), "utf-8")
    markers = load_markers("de", path)
    assert markers is not None and markers.continuation("Jedoch ist") == "Jedoch"
    chunker = SemanticChunker(markers_path=path)
    paras = [
        "Viele Menschen glauben, dass die Seele nach dem Tod des Körpers weiterlebt.",
        "Jedoch sagt die Bibel etwas anderes über die Seele und den Tod.",
    ]
    chunks = chunker.chunk(paras, "d", metadata={"language": "de"})
    assert [c.metadata["para_ids"] for c in chunks] == [[0, 1]]


def test_invalid_marker_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "m.json"
    bad.write_text('{"languages": {"xx": {"continuation": [42]}}}', "utf-8")
    with pytest.raises(ConfigError, match="invalid marker entry 42"):
        load_markers("xx", bad)
    bad.write_text("{not json", "utf-8")
    with pytest.raises(ConfigError, match="cannot read markers file"):
        load_markers("xx", bad)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        # a string where a list belongs was read letter by letter: markers "H", "o", ...
        ({"continuation": "However"}, "en.continuation in the markers file must be a list"),
        ({"continuation": 5}, "en.continuation in the markers file must be a list"),
        ({"closure": None}, "en.closure in the markers file must be a list"),
        ({"continuation": [{"marker": ""}]}, "invalid marker entry {'marker': ''}"),
        (
            {"continuation": [{"marker": "Yet", "not_followed_by": "again"}]},
            "not_followed_by must be a list of words",
        ),
        (
            {"continuation": [{"marker": "Yet", "not_followed_by": [5]}]},
            "not_followed_by must be a list of words",
        ),
        ({"continuation": [{"marker": "So", "followed_by": 5}]}, "followed_by must be a string"),
        # a misspelt kind left the language without those markers, silently
        ({"continuaton": ["However"]}, r"unknown keys \['continuaton'\]: use continuation"),
    ],
)
def test_a_misshapen_language_entry_is_one_line_naming_it(
    tmp_path: Path, entry: dict[str, object], message: str
) -> None:
    path = tmp_path / "markers.json"
    path.write_text(json.dumps({"languages": {"en": entry}}), "utf-8")
    with pytest.raises(ConfigError, match=message) as err:
        SemanticChunker(markers_path=path).chunk(["A b.", "However c."], "d")
    assert "\n" not in str(err.value)


def test_a_markers_file_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(ConfigError, match="deep.json: its JSON is nested too deeply"):
        load_markers("en", path)
