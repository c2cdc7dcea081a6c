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
