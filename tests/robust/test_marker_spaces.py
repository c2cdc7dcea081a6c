"""Markers typed with no-break or other Unicode spaces, or typographic
apostrophes, are the same markers, for every language in the data."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import get_chunker
from jw_rag.chunkers.markers import load_markers, marker_languages

SPACES = ["\u00a0", "\u202f", "\u2007", "\u2009", "\u3000"]


def _spaced(lang: str) -> list[tuple[str, str]]:
    markers = load_markers(lang)
    assert markers is not None
    listed = [("continuation", m) for m in markers.continuation_markers]
    listed += [("closure", m) for m in markers.closure_markers]
    return [(kind, m) for kind, m in listed if " " in m or "'" in m]


@pytest.mark.parametrize("lang", marker_languages())
def test_markers_match_with_any_unicode_space_and_apostrophe(lang: str) -> None:
    markers = load_markers(lang)
    assert markers is not None
    cases = _spaced(lang)
    assert cases, f"no marker with a space in {lang}"
    for kind, marker in cases:
        plain = f"{marker}, the text goes on here."
        found = markers.opener(plain)
        assert found is not None
        for space in SPACES:
            typeset = plain.replace(" ", space, marker.count(" ")).replace("'", "\u2019")
            assert markers.opener(typeset) == found, typeset
            assert getattr(markers, kind)(typeset) == getattr(markers, kind)(plain)
        if " " in marker:  # a line break inside a marker is not a space
            broken = plain.replace(" ", "\n", 1)
            assert getattr(markers, kind)(broken) != marker


def test_no_break_space_inside_a_marker_joins_the_paragraph() -> None:
    first = "El alma es la persona entera, no una parte invisible que sobrevive."
    plain = [first, "Sin embargo, muchos creen otra cosa sobre la muerte."]
    typeset = [first, "Sin\u00a0embargo, muchos creen otra cosa sobre la muerte."]
    chunker = get_chunker("semantic")
    want = chunker.chunk(plain, "d", metadata={"language": "es"})
    got = chunker.chunk(typeset, "d", metadata={"language": "es"})
    assert len(want) == len(got) == 1
    assert got[0].metadata["merge_reason"] == want[0].metadata["merge_reason"]
    assert got[0].metadata["merge_reason"] == "continuation_marker"
