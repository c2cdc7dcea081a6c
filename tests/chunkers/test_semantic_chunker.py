"""The marker-based semantic chunker, in the three languages."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import SemanticChunker, get_chunker
from jw_rag.model import Paragraph

PREMISE = {
    "en": "Many people believe that the soul survives the death of the body and lives on somewhere else.",
    "es": "Muchas personas creen que el alma sobrevive a la muerte del cuerpo y sigue viviendo en otro lugar.",
    "pt": "Muitas pessoas acreditam que a alma sobrevive à morte do corpo e continua vivendo em outro lugar.",
}
CONTINUATION = {
    "en": "However, the Bible says at Ezekiel 18:4 that the soul who sins is the one who will die.",
    "es": "Sin embargo, la Biblia dice en Ezequiel 18:4 que el alma que peca es la que morirá.",
    "pt": "No entanto, a Bíblia diz em Ezequiel 18:4 que a alma que peca é a que morrerá.",
}
CLOSURE = {
    "en": "Therefore, the soul is the living person, not an immortal part that leaves the body.",
    "es": "Por lo tanto, el alma es la persona viva, no una parte inmortal que sale del cuerpo.",
    "pt": "Portanto, a alma é a pessoa viva, e não uma parte imortal que deixa o corpo.",
}
NEXT_TOPIC = {
    "en": "The resurrection is another teaching that gives real hope to those who have lost someone.",
    "es": "La resurrección es otra enseñanza que da verdadera esperanza a quienes han perdido a alguien.",
    "pt": "A ressurreição é outro ensino que dá verdadeira esperança a quem perdeu alguém querido.",
}


def _groups(chunks):
    return [c.metadata["para_ids"] for c in chunks]


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_continuation_joins_previous_paragraph(lang: str) -> None:
    chunks = SemanticChunker().chunk([PREMISE[lang], CONTINUATION[lang], NEXT_TOPIC[lang]], "d")
    assert _groups(chunks) == [[0, 1], [2]]
    assert chunks[0].metadata["merge_reason"] == "continuation_marker"
    assert chunks[0].metadata["language"] == lang
    assert chunks[1].metadata["merge_reason"] is None


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_closure_marker_closes_the_argument(lang: str) -> None:
    paras = [PREMISE[lang], CONTINUATION[lang], CLOSURE[lang], CONTINUATION[lang]]
    chunks = SemanticChunker().chunk(paras, "d")
    assert _groups(chunks) == [[0, 1, 2], [3]]
    marker = {"en": "Therefore", "es": "Por lo tanto", "pt": "Portanto"}[lang]
    assert chunks[0].metadata["closure_marker"] == marker
    # the chunk after a closure is not glued to it, even though it opens with a continuation
    assert chunks[1].metadata["closure_marker"] is None


def test_closure_marker_only_recorded_when_it_closed_the_chunk() -> None:
    # a chunk below min_chars is not closed by its marker: it keeps growing
    chunks = SemanticChunker(min_chars=400).chunk(
        ["Por lo tanto, sí.", PREMISE["es"] + " Fin."], "d"
    )
    assert len(chunks) == 1
    assert chunks[0].metadata["closure_marker"] is None


def test_after_two_continuations_the_chunk_is_flushed() -> None:
    en = [PREMISE["en"]] + [CONTINUATION["en"]] * 3
    chunks = SemanticChunker().chunk(en, "d")
    assert _groups(chunks) == [[0, 1, 2], [3]]
    chunks = SemanticChunker(max_continuations=3).chunk(en, "d")
    assert _groups(chunks) == [[0, 1, 2, 3]]


def test_paragraph_after_a_continuation_is_judged_on_its_own() -> None:
    paras = [PREMISE["en"], CONTINUATION["en"], NEXT_TOPIC["en"], NEXT_TOPIC["en"]]
    assert _groups(SemanticChunker().chunk(paras, "d")) == [[0, 1], [2], [3]]


def test_overflow_allows_continuation_past_max_chars_but_never_past_the_cap() -> None:
    premise = ("The premise of the argument is stated here. " * 21).strip()  # 923 chars
    cont = ("However, the argument goes on. " * 16).strip()  # 495 chars
    en = {"language": "en"}
    chunks = SemanticChunker(max_chars=1000, overflow=0.5).chunk([premise, cont], "d", metadata=en)
    assert len(chunks) == 1 and len(chunks[0].text) > 1000
    chunks = SemanticChunker(max_chars=1000, overflow=0.3).chunk([premise, cont], "d", metadata=en)
    assert len(chunks) == 2
    assert all(len(c.text) <= 1300 for c in chunks)


@pytest.mark.parametrize(
    "text",
    [
        "So many people came to hear him that day in the town square.",
        "Assim como um pai cuida dos filhos, Jeová cuida de seu povo fiel.",
        "Logo no início do seu ministério, Jesus ensinou muitas coisas ao povo.",
        "Mascotas, casas y riquezas no pueden dar la esperanza verdadera a nadie.",
        "however, lower case is not a marker at the start of this paragraph here.",
    ],
)
def test_ambiguous_openers_do_not_merge(text: str) -> None:
    lang = (
        "pt"
        if text.startswith(("Assim", "Logo"))
        else ("es" if text.startswith("Mascotas") else "en")
    )
    chunks = SemanticChunker().chunk([PREMISE[lang], text], "d", metadata={"language": lang})
    assert len(chunks) == 2


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "17 However, the context shows otherwise in this verse."),
        ("es", "17. Sin embargo, el contexto muestra otra cosa en este versículo."),
        ("es", "¿Pero qué dice el contexto de este versículo de la Biblia?"),
        ("es", "«Sin embargo», dirá alguien, «¿qué pasa con los malvados?»"),
        ("es", "\u00a0Sin embargo, el contexto muestra otra cosa en este versículo."),
        ("pt", "(18) No entanto, o contexto mostra outra coisa neste versículo."),
    ],
)
def test_markers_found_after_numbers_quotes_and_nbsp(lang: str, text: str) -> None:
    chunks = SemanticChunker().chunk([PREMISE[lang], text], "d", metadata={"language": lang})
    assert len(chunks) == 1, text


def test_unknown_language_falls_back_to_paragraph_rules() -> None:
    paras = [
        "Dies ist ein deutscher Absatz, der lang genug ist, um allein zu stehen.",
        "Jedoch, ein zweiter.",
    ]
    chunks = SemanticChunker().chunk(paras, "d", metadata={"language": "de"})
    assert chunks[0].metadata["fallback"] == "unknown_language"


def test_mixed_languages_fall_back_and_say_so() -> None:
    paras = [
        PREMISE["en"],
        CONTINUATION["es"],
        PREMISE["es"],
        CONTINUATION["en"],
        PREMISE["en"],
        PREMISE["es"],
    ]
    chunks = SemanticChunker().chunk(paras, "d")
    assert all(c.metadata.get("mixed_language") for c in chunks)
    assert all(c.metadata["fallback"] == "mixed_language" for c in chunks)


def test_jw_language_codes_select_markers() -> None:
    chunks = SemanticChunker().chunk(
        [PREMISE["pt"], CONTINUATION["pt"]], "d", metadata={"language": "T"}
    )
    assert chunks[0].metadata["language"] == "pt"
    assert len(chunks) == 1


def test_source_ids_become_para_ids() -> None:
    paras = [Paragraph(PREMISE["es"], id="17"), Paragraph(CONTINUATION["es"], id="18")]
    chunks = SemanticChunker().chunk(paras, "art")
    assert chunks[0].metadata["para_ids"] == ["17", "18"]
    assert chunks[0].source_id == "art"


def test_env_var_selects_chunker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JW_CHUNKER", "semantic")
    assert get_chunker().name == "semantic"
    monkeypatch.setenv("JW_CHUNKER", "paragraph")
    assert get_chunker().name == "paragraph"
    monkeypatch.delenv("JW_CHUNKER")
    assert get_chunker().name == "paragraph"
    monkeypatch.setenv("JW_CHUNKER", "semantic")
    assert get_chunker("paragraph").name == "paragraph"  # the argument wins


def test_unknown_chunker_lists_valid_names(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"unknown chunker 'nope'.*paragraph.*semantic"):
        get_chunker("nope")
    monkeypatch.setenv("JW_CHUNKER", "bogus")
    with pytest.raises(ValueError, match=r"JW_CHUNKER"):
        get_chunker()


def test_bad_options_are_a_config_error() -> None:
    with pytest.raises(
        ValueError, match="chunker .semantic. has no option .bogus.; its options are"
    ):
        get_chunker("semantic", bogus=1)
    with pytest.raises(ValueError, match="overflow"):
        SemanticChunker(overflow=2)


def test_packing_mode_fills_to_target_and_never_cuts_before_a_continuation() -> None:
    en = {"language": "en"}
    paras = [PREMISE["en"], NEXT_TOPIC["en"], CONTINUATION["en"], NEXT_TOPIC["en"], PREMISE["en"]]
    # target 200: two ~90-char paragraphs fit; the continuation joins past the target
    chunks = SemanticChunker(target_chars=200).chunk(paras, "d", metadata=en)
    assert [c.metadata["para_ids"] for c in chunks] == [[0, 1, 2], [3, 4]]
    assert chunks[0].metadata["merge_reason"] == "continuation_marker"
    assert chunks[1].metadata["merge_reason"] == "packed"
    # a closing paragraph ends a chunk that reached half the target
    closing = [PREMISE["en"], CLOSURE["en"], NEXT_TOPIC["en"]]
    chunks = SemanticChunker(target_chars=300).chunk(closing, "d", metadata=en)
    assert [c.metadata["para_ids"] for c in chunks] == [[0, 1], [2]]
    assert chunks[0].metadata["closure_marker"] == "Therefore"
    with pytest.raises(ValueError, match="target_chars"):
        SemanticChunker(target_chars=5000)
