"""The structure chunker: sections as chunks, heading paths, descent, grouping, fallback."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import StructureChunker, get_chunker
from jw_rag.chunkers.validate import check_chunks
from jw_rag.errors import ConfigError
from jw_rag.model import Paragraph
from tests.chunkers.chunker_helpers import summary

ES = {"language": "es"}
M, R, F, X = "Manual de instalación", "Configuración de red", "Cortafuegos", "Proxy"
MANUAL = [
    Paragraph(M, heading_path=(M,), kind="heading"),
    Paragraph("Este manual explica la instalación.", heading_path=(M,)),
    Paragraph(R, heading_path=(M, R), kind="heading"),
    Paragraph(F, heading_path=(M, R, F), kind="heading"),
    Paragraph("Abra el puerto 443 en el cortafuegos.", heading_path=(M, R, F)),
    Paragraph(X, heading_path=(M, R, X), kind="heading"),
    Paragraph("Configure el proxy del sistema.", heading_path=(M, R, X)),
]
LEAD = ("Manual de instalación\n\nEste manual explica la instalación.", (0, 0, 1, 35))
FIREWALL = "Cortafuegos\n\nAbra el puerto 443 en el cortafuegos."
PROXY = "Proxy\n\nConfigure el proxy del sistema."


def test_a_document_that_fits_is_one_chunk_with_the_top_heading() -> None:
    chunks = StructureChunker().chunk(MANUAL, "d", metadata=ES)
    check_chunks(MANUAL, chunks)
    assert summary(chunks, "heading_path", "embed_prefix") == [
        ("\n\n".join(p.text for p in MANUAL), (0, 0, 6, 31), [M], M)
    ]


def test_nested_sections_descend_and_carry_their_heading_path() -> None:
    chunks = StructureChunker(max_chars=80, min_chars=0).chunk(MANUAL, "d", metadata=ES)
    check_chunks(MANUAL, chunks, max_len=80)
    assert summary(chunks, "heading_path", "embed_prefix", "merge_reason") == [
        (*LEAD, [M], M, None),
        (R, (2, 0, 2, 20), [M, R], f"{M} > {R}", None),
        (FIREWALL, (3, 0, 4, 37), [M, R, F], f"{M} > {R} > {F}", None),
        (PROXY, (5, 0, 6, 31), [M, R, X], f"{M} > {R} > {X}", None),
    ]
    # the store embeds the prefix and the untouched source text
    assert chunks[2].text == "\n\n".join(p.text for p in MANUAL[3:5])


def test_short_sections_group_under_their_parent() -> None:
    chunks = StructureChunker(max_chars=80, min_chars=30).chunk(MANUAL, "d", metadata=ES)
    check_chunks(MANUAL, chunks, max_len=80)
    # the bare "Configuración de red" lead (20 < 30) joins its first sub-section;
    # the grouped chunk carries the parent's path, the path both share
    assert summary(chunks, "heading_path", "merge_reason") == [
        (*LEAD, [M], None),
        (f"{R}\n\n{FIREWALL}", (2, 0, 4, 37), [M, R], "short_section"),
        (PROXY, (5, 0, 6, 31), [M, R, X], None),
    ]


def test_separator_and_prefix_switch() -> None:
    chunks = StructureChunker(max_chars=80, min_chars=0, separator=" / ").chunk(
        MANUAL, "d", metadata=ES
    )
    assert chunks[2].metadata["embed_prefix"] == f"{M} / {R} / {F}"
    plain = StructureChunker(max_chars=80, min_chars=0, prefix_headings=False).chunk(
        MANUAL, "d", metadata=ES
    )
    assert all("embed_prefix" not in c.metadata for c in plain)
    assert [c.metadata["heading_path"] for c in plain] == [
        c.metadata["heading_path"] for c in chunks
    ]


def test_a_long_leaf_is_split_by_the_paragraph_rules_keeping_its_heading() -> None:
    # 191 characters once trimmed: cut a heading shorter (87), in balanced parts
    # of 5, 5 and 2 sentences, the first joining the heading (92 <= 100)
    body = "Abra el puerto. " * 12
    paras = [
        Paragraph(F, heading_path=(F,), kind="heading"),
        Paragraph(body, heading_path=(F,)),
        Paragraph("Luego reinicie.", heading_path=(F,)),
    ]
    chunks = StructureChunker(max_chars=100, min_chars=0).chunk(paras, "d", metadata=ES)
    check_chunks(paras, chunks, max_len=100)
    assert summary(chunks, "heading_path") == [
        ("Cortafuegos\n\n" + "Abra el puerto. " * 4 + "Abra el puerto.", (0, 0, 1, 79), [F]),
        ("Abra el puerto. " * 4 + "Abra el puerto.", (1, 80, 1, 159), [F]),
        ("Abra el puerto. Abra el puerto.", (1, 160, 1, 191), [F]),
        ("Luego reinicie.", (2, 0, 2, 15), [F]),
    ]


def test_flat_headings_without_paths_open_sections() -> None:
    paras = [
        Paragraph("Uno", kind="heading"),
        Paragraph("Texto uno es corto."),
        Paragraph("Dos", kind="heading"),
        Paragraph("Texto dos también."),
    ]
    chunks = StructureChunker(max_chars=30, min_chars=0).chunk(paras, "d", metadata=ES)
    check_chunks(paras, chunks, max_len=30)
    assert summary(chunks, "heading_path", "embed_prefix") == [
        ("Uno\n\nTexto uno es corto.", (0, 0, 1, 19), ["Uno"], "Uno"),
        ("Dos\n\nTexto dos también.", (2, 0, 3, 18), ["Dos"], "Dos"),
    ]


def test_no_headings_falls_back_to_the_paragraph_rules() -> None:
    chunker = get_chunker("structure", max_chars=30, min_chars=10)
    assert isinstance(chunker, StructureChunker)
    chunks = chunker.chunk(["Just text here.", "More text."], "d", metadata={"language": "en"})
    assert summary(chunks, "heading_path", "embed_prefix", "fallback") == [
        ("Just text here.", (0, 0, 0, 15), [], "", "no_headings"),
        ("More text.", (1, 0, 1, 10), [], "", "no_headings"),
    ]


def test_bad_sizes_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="min_chars"):
        StructureChunker(max_chars=100, min_chars=101)
    with pytest.raises(ConfigError, match="max_chars"):
        StructureChunker(max_chars=0)
