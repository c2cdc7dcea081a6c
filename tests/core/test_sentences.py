"""Sentence segmentation: exact spans on tricky inputs, invariants on random
text, and boundary precision/recall on a hand-labelled public sample."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_core import ends_sentence, split_sentences

# Sentences written for these tests.
CASES = [
    (
        "Lea Mat. 5:3 con atención. Luego lea 1 Cor. 13:4-7. Después Gén. 1:1 y Juan 3:16.",
        ["Lea Mat. 5:3 con atención.", "Luego lea 1 Cor. 13:4-7.", "Después Gén. 1:1 y Juan 3:16."],
    ),
    (
        "Véase la pág. 12. El Sr. Gómez y la Dra. Pérez llegaron. Viven en EE. UU. desde 1990.",
        [
            "Véase la pág. 12.",
            "El Sr. Gómez y la Dra. Pérez llegaron.",
            "Viven en EE. UU. desde 1990.",
        ],
    ),
    (
        "Fruits, e.g. apples, are good. Some, i.e. most, agree. We bought pens, etc. for school. Then we left.",
        [
            "Fruits, e.g. apples, are good.",
            "Some, i.e. most, agree.",
            "We bought pens, etc. for school.",
            "Then we left.",
        ],
    ),
    (
        'It cost 3.5 dollars. Wait... What happened? "Where are you?" he asked. "Here!" she said.',
        [
            "It cost 3.5 dollars.",
            "Wait...",
            "What happened?",
            '"Where are you?" he asked.',
            '"Here!" she said.',
        ],
    ),
    (
        "«Ven pronto.» Él vino. ¿Vienes? —preguntó ella. ¡Qué alegría! ¿Y tú? Sí.",
        ["«Ven pronto.»", "Él vino.", "¿Vienes? —preguntó ella.", "¡Qué alegría!", "¿Y tú?", "Sí."],
    ),
    (
        'He said "Stop." Then he left. Ele disse: “Venha.” Depois saiu.',
        ['He said "Stop."', "Then he left.", "Ele disse: “Venha.”", "Depois saiu."],
    ),
    (
        "J. R. R. Tolkien wrote it. The U.S. Army is big. I said no. Then he read No. 5 aloud.",
        [
            "J. R. R. Tolkien wrote it.",
            "The U.S. Army is big.",
            "I said no.",
            "Then he read No. 5 aloud.",
        ],
    ),
    (
        "Nació en el siglo II d.C. Murió joven. Leia Sl. 23:1 e Jo. 17:3. Depois ore.",
        ["Nació en el siglo II d.C.", "Murió joven.", "Leia Sl. 23:1 e Jo. 17:3.", "Depois ore."],
    ),
    (
        "He waited. ... Then he spoke. (See Rom. 8:28.) Paul wrote it.",
        ["He waited.", "... Then he spoke.", "(See Rom. 8:28.)", "Paul wrote it."],
    ),
    (
        "a lei foi aprovada. o texto entra em vigor hoje. ver art. 5 do regulamento.",
        ["a lei foi aprovada.", "o texto entra em vigor hoje.", "ver art. 5 do regulamento."],
    ),
    ("  \n Una sola frase sin punto final  ", ["Una sola frase sin punto final"]),
    ("", []),
    ("   \n\t ", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:30] for c in CASES])
def test_golden_sentences(text: str, expected: list[str]) -> None:
    assert [text[a:b] for a, b in split_sentences(text)] == expected


def test_exact_offsets() -> None:
    text = " Sr. Paz llegó.  ¿Vino?\nSí. "
    assert split_sentences(text, "es") == [(1, 15), (17, 23), (24, 27)]


def _check_invariants(text: str) -> None:
    spans = split_sentences(text)
    prev_end = 0
    covered = 0
    for a, b in spans:
        assert prev_end <= a < b <= len(text)
        assert not text[a].isspace() and not text[b - 1].isspace()
        assert text[prev_end:a].strip() == ""  # only whitespace between sentences
        covered += sum(not c.isspace() for c in text[a:b])
        prev_end = b
    assert text[prev_end:].strip() == ""
    assert covered == sum(not c.isspace() for c in text)


_PIECES = st.sampled_from(
    [
        "Mat.",
        "5:3",
        "EE.",
        "UU.",
        "Sr.",
        "e.g.",
        "3.5",
        "...",
        "…",
        "?",
        "!",
        "¿",
        "¡",
        "»",
        "«",
        '"',
        "”",
        "(",
        ")",
        "—",
        "Él",
        "dijo",
        "the",
        "A.",
        "d.C.",
        "no.",
        "\n",
        " ",
        "  ",
        ".",
        "x",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40).map(" ".join))
def test_invariants_on_sentence_like_text(text: str) -> None:
    _check_invariants(text)


_PERIOD_PIECES = _PIECES | st.sampled_from(
    [
        "J.",
        "j.",
        "pág.",
        "12.",
        "U.S.",
        "word.",
        "abcdefghijklmn.",
        "ab-cdefghijklmnop.",
        "x-y.",
        "7",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_PERIOD_PIECES, min_size=2, max_size=16).map(" ".join))
def test_single_period_shortcut_decides_as_the_full_rules(text: str) -> None:
    """The scan decides a single period from the letters before it; that must
    be what ``_period_is_final`` decides from the whole token."""
    from jw_core.sentences import _period_is_final, _single_period_is_final

    for dot, ch in enumerate(text[:-2]):
        if ch == "." and text[dot + 1] == " " and not text[dot + 2].isspace():
            expected = _period_is_final(text, dot, dot + 2)
            assert _single_period_is_final(text, dot, dot + 2) == expected, (text, dot)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_invariants_on_any_text(text: str) -> None:
    _check_invariants(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fim.", True),
        ("¿Qué?", True),
        ("Done!”", True),
        ("»Ven.» ", True),
        ("and so", False),
        ("", False),
    ],
)
def test_ends_sentence(text: str, expected: bool) -> None:
    assert ends_sentence(text) is expected


def _bench_module():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "text_quality.py"
    spec = importlib.util.spec_from_file_location("text_quality", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_boundaries_on_labelled_sample(shared_bench: Path) -> None:
    scores = _bench_module().boundary_scores(shared_bench, split_sentences)
    for lang, (tp, fp, fn) in scores.items():
        assert tp + fn >= 100, lang
        assert tp / (tp + fp) >= 0.99, (lang, fp)
        assert tp / (tp + fn) >= 0.99, (lang, fn)
