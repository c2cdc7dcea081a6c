"""Line structure from the real readers to the units: rows, chat lines and list
items keep their line breaks, prose wrapped at a margin still flows."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_rag._lines import join_lines, line_breaks
from jw_rag.chunker import chunk_paragraphs
from jw_rag.ingest import ingest_markdown, ingest_text, parse_markdown, parse_pdf, parse_text
from jw_rag.ingest._html import parse_html
from jw_rag.ingest._html_walk import extract_paragraphs
from jw_rag.model import rebuild_text
from jw_rag.units import passages
from jw_rag.windows import is_window

CHAT = "\n".join(
    f"[09:{i:02d}] {'ana' if i % 2 else 'ben'}: message {i} about the shared budget, item {i}"
    for i in range(24)
)
TABLE = "\n".join(
    ["| month | revenue | cost |", "|---|---:|---:|"]
    + [f"| 2024-{m:02d} | {m * 1000} | {m * 400} |" for m in range(1, 41)]
)
ETEXT = (
    "It is a melancholy object to those who walk through this great town or travel in the "
    "country, when they see the streets, the roads and cabin doors crowded with beggars of "
    "the female sex, followed by three, four, or six children, all in rags, and importuning "
    "every passenger for an alms. These mothers, instead of being able to work for their "
    "honest livelihood, are forced to employ all their time in strolling to beg sustenance "
    "for their helpless infants, who, as they grow up, either turn thieves for want of work, "
    "or leave their dear native country to fight for the Pretender in Spain, or sell "
    "themselves to the Barbadoes. I think it is agreed by all parties that this prodigious "
    "number of children in the arms, or on the backs, or at the heels of their mothers, and "
    "frequently of their fathers, is in the present deplorable state of the kingdom a very "
    "great additional grievance; and therefore whoever could find out a fair, cheap and easy "
    "method of making these children sound and useful members of the commonwealth would "
    "deserve so well of the public as to have his statue set up for a preserver of the nation."
)


def _units(store, source: str) -> list[str]:  # noqa: ANN001
    return [c.text for c in store.sources[source]]


def test_a_chat_log_saved_as_text_gives_units_of_whole_lines(tmp_path: Path, store) -> None:
    (tmp_path / "chat.txt").write_text(CHAT + "\n", encoding="utf-8")
    assert parse_text(tmp_path / "chat.txt").paragraphs[0].text == CHAT
    ingest_text(store, tmp_path / "chat.txt", language="en")
    lines = CHAT.split("\n")
    assert _units(store, "chat") == [
        "\n".join(lines[0:8]),
        "\n".join(lines[8:16]),
        "\n".join(lines[16:24]),
    ]
    assert all(c.metadata["para_ids"] == [0] for c in store.sources["chat"])


def test_a_markdown_table_gives_units_of_whole_rows(tmp_path: Path, store) -> None:
    (tmp_path / "sales.md").write_text("# Sales\n\n" + TABLE + "\n", encoding="utf-8")
    doc = parse_markdown(tmp_path / "sales.md")
    assert [p.text for p in doc.paragraphs] == ["Sales", TABLE]
    ingest_markdown(store, tmp_path / "sales.md", language="en")
    rows = TABLE.split("\n")
    assert (
        _units(store, "sales")
        == [  # the chunker keeps a heading with what follows
            "Sales\n\n" + "\n".join(rows[0:22]),
            "\n".join(rows[22:42]),
        ]
    )


def test_a_hard_wrapped_etext_reads_as_flowing_prose(tmp_path: Path, store) -> None:
    wrapped = textwrap.fill(ETEXT, 72)
    assert wrapped.count("\n") == 15
    (tmp_path / "proposal.txt").write_text(f"A MODEST PROPOSAL\n\n{wrapped}\n", encoding="utf-8")
    doc = parse_text(tmp_path / "proposal.txt")
    assert [p.text for p in doc.paragraphs] == ["A MODEST PROPOSAL", ETEXT]
    ingest_text(store, tmp_path / "proposal.txt", language="en")
    cut = ETEXT.index("I think")  # balanced passages cut at a sentence end, not a line end
    assert (
        _units(store, "proposal")
        == [
            "A MODEST PROPOSAL\n\n" + ETEXT[: cut - 1],  # the chunker keeps a heading with its text
            ETEXT[cut:],
        ]
    )


def test_prose_with_a_list_and_no_blank_line_keeps_the_items(tmp_path: Path) -> None:
    text = (
        "The committee met on Monday and agreed on the following points after a long\n"
        "discussion that went on well into the evening:\n"
        "- the budget stays as it is\n"
        "- the hall is booked for June\n"
        "Everyone is asked to confirm by Friday.\n"
    )
    (tmp_path / "minutes.txt").write_text(text, encoding="utf-8")
    assert parse_text(tmp_path / "minutes.txt").paragraphs[0].text == (
        "The committee met on Monday and agreed on the following points after a long "
        "discussion that went on well into the evening:\n"
        "- the budget stays as it is\n"
        "- the hall is booked for June\n"
        "Everyone is asked to confirm by Friday."
    )


def test_html_br_and_pre_keep_their_lines() -> None:
    root = parse_html(
        b"<html><body><h2>Two<br>lines</h2><p>Rose street 4,<br>  Springfield<br><br>USA</p>"
        b"<div>loose<br>text<p>x</p></div><pre>a = 1\n    b = 2</pre></body></html>",
        "page",
    )
    assert [p.text for p in extract_paragraphs(root)] == [
        "Two lines",
        "Rose street 4,\nSpringfield\nUSA",
        "loose\ntext",
        "x",
        "a = 1\n    b = 2",
    ]


def test_pdf_rows_keep_their_lines_and_wrapped_lines_flow(tmp_path: Path, make_pdf) -> None:
    prose = textwrap.wrap(ETEXT[:300], 70)
    rows = ["Item one: 10", "Item two: 20", "Item three: 30"]
    lines = [*prose, *rows]  # the rows set right under the prose, same spacing
    page = [(72, 720 - 14 * i, line) for i, line in enumerate(lines)]
    doc = parse_pdf(make_pdf(tmp_path / "r.pdf", [page]))
    assert [p.text for p in doc.paragraphs] == [" ".join(prose) + "\n" + "\n".join(rows)]
    # a block of short rows alone has no margin to tell a wrap from a row by:
    # it is read as one line, as before
    alone = [(72, 720 - 14 * i, row) for i, row in enumerate(rows)]
    assert parse_pdf(make_pdf(tmp_path / "a.pdf", [alone])).paragraphs[0].text == " ".join(rows)


def test_line_breaks_rules() -> None:
    assert line_breaks([]) == [] and line_breaks(["one"]) == []
    assert line_breaks(["| a |", "| b |"]) == [True]  # table rows
    assert line_breaks(["x" * 300, "and more"]) == [True]  # a paragraph on its own line
    assert line_breaks(["word " * 14, "  indented"]) == [True]
    assert line_breaks(["Short one", "Another line that is a good deal longer than it"]) == [True]
    wrapped = textwrap.wrap("lorem ipsum dolor sit amet " * 10, 50)
    assert line_breaks(wrapped) == [False] * (len(wrapped) - 1)
    # a name and colon starting one wrapped line is chance, starting two is a chat
    assert line_breaks(["a b c d e f g h i j k l m n o p q r in Los", "Angeles: the team"]) == [
        False
    ]
    assert line_breaks(["Ana: hello there my friend", "Ben: hi"]) == [True]
    assert join_lines(["  Title ", "", "Body text that goes on and on"]) == (
        "Title\nBody text that goes on and on"
    )
    assert join_lines(["", " "]) == ""


_LINE = st.one_of(
    st.text(alphabet="abc DEF.:-|#>", min_size=0, max_size=90),
    st.sampled_from(["- item", "1. first", "| a | b |", "Ana: hi", "[10:01] x", "    code"]),
    st.text(alphabet="abcdefgh ", min_size=60, max_size=80),
    st.just(""),
    st.just("\u200b\u00a0\t"),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_LINE, min_size=1, max_size=60), size=st.sampled_from([40, 120, 500]))
def test_units_from_any_line_layout_reproduce_the_read_text(
    tmp_path_factory, lines: list[str], size: int
) -> None:
    """Any layout of lines through the text reader: every word is kept in order,
    and the units' spans rebuild their text and cover every paragraph once."""
    from jw_rag.units import UnitRules

    text = "\n".join(lines)
    if not text.replace("\u200b", "").strip():
        return
    path = tmp_path_factory.mktemp("ll") / "l.txt"
    path.write_text(text, encoding="utf-8")
    doc = parse_text(path)
    assert " ".join(p.text for p in doc.paragraphs).split() == text.replace("\u200b", "").split()
    rules = UnitRules(passage_chars=size, split_above=size * 3 // 2, group_below=size // 2)
    units = passages(chunk_paragraphs(doc.paragraphs, "l"), doc.paragraphs, rules)
    covered: list[str] = []  # the units' characters, whitespace aside
    for u in units:
        assert not is_window(u)
        assert u.text.strip() and u.text == rebuild_text(doc.paragraphs, u.metadata["span"])
        span = u.metadata["span"]
        assert u.metadata["para_ids"] == [
            k for k in range(span["start_para"], span["end_para"] + 1)
            if doc.paragraphs[k].text.strip()
        ]  # fmt: skip
        covered.append("".join(u.text.split()))
    assert "".join(covered) == "".join("".join(p.text.split()) for p in doc.paragraphs)
