"""The HTML readers parse a page as a stream of events (``_html_walk``): the
same paragraphs, heading paths, ids, kinds, titles and errors as the tree walk
they replace (``html_tree_walk``), on the fixtures and on generated markup."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jw_rag.ingest._html_walk as walk
from jw_rag.errors import IngestError
from jw_rag.ingest._html import element_text, parse_html
from jw_rag.model import Paragraph
from tests.ingest import html_tree_walk


def _tree_read(data: bytes, name: str, *, article: bool) -> tuple:
    """What the readers took from a page before: the tree, then the walk. What
    follows ``</body>`` or ``</html>`` is at the end of the body in the tree
    ``parse_html`` gives (libxml2 puts it after the body, or in other root
    elements, which are left empty), so the page's root holds all its text."""
    root = parse_html(data, name)
    articles = root.xpath(".//article") if article else []
    body = articles[0] if articles else root.find("body")
    if body is None:
        body = root
    paragraphs = html_tree_walk.extract_paragraphs(body, name)
    h1 = body.xpath(".//h1")
    first = root.xpath(".//h1")
    title = root.find(".//title")
    return (
        paragraphs,
        element_text(h1[0]) if h1 else None,
        element_text(first[0]) if first else None,
        element_text(title) if title is not None else None,
        root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang"),
    )


def _stream_read(data: bytes, name: str, *, article: bool) -> tuple:
    page = walk.read_page(data, name, article=article)
    return page.paragraphs, page.h1, page.first_h1, page.title, page.lang


def _outcome(read, data: bytes, article: bool) -> tuple:
    try:
        return ("ok", read(data, "page.html", article=article))
    except IngestError as exc:
        return ("error", str(exc))


def _same(data: bytes, monkeypatch: pytest.MonkeyPatch | None = None) -> None:
    for article in (False, True):
        old = _outcome(_tree_read, data, article)
        new = _outcome(_stream_read, data, article)
        assert new == old, (data, article)
        if old[0] == "ok":  # the tree-driven walk is the same code as the stream
            root = parse_html(data, "page.html")
            assert walk.extract_paragraphs(root) == html_tree_walk.extract_paragraphs(root)


# -- golden: the pages the readers' tests use ------------------------------------

PAGES = [
    b"<html><body><h2>Two<br>lines</h2><p>Rose street 4,<br>  Springfield<br><br>USA</p>"
    b"<div>loose<br>text<p>x</p></div><pre>a = 1\n    b = 2</pre></body></html>",
    b'<html lang="es"><head><title>T\xc3\xadtulo</title></head><body><article>'
    b'<h1 data-pid="1">Agua</h1><p data-pid="2"><span class="parNum">2</span> Los jardines '
    b'necesitan agua.<sup>a</sup></p><p data-pid="3">3 Cada ma\xc3\xb1ana.</p></article>'
    b"<footer><p>not in the article</p></footer></body></html>",
    b"<p>one<p>two<div>three<script>var a = '<p>';</script>four</div><!-- c -->five",
    b'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
    b"<head><title>C</title></head><body><h1>One</h1><p>Gardens need water.</p>"
    b'<aside class="footnotes"><p>A note.</p></aside><ol><li>a</li><li>b<ul><li>c</li></ul>'
    b"</li></ol><table><tr><td>1</td><td>2</td></tr></table></body></html>",
    b"<div>lead <b>bold</b><nav>menu</nav> tail <span><p>inside span</p></span></div>",
    b"<html><body><h1>A</h1><h3>B</h3><p>under b</p><h2>C</h2><p>under c</p></body></html>",
    b'<meta charset="iso-8859-1"><p>caf\xe9 cr\xe8me</p>',
    # text after </body> or </html>: read at the end of the body, as a browser shows it
    b"<html></html>Gardens",
    b"<html><body><p>a</p></body></html>Gardens<p>late</p><!-- c -->",
    b"<html><body><p>a</p></body></html><h1>Stray</h1>",
    b"<p>lead</p></html><article><h1>Late</h1><p>after</p></article>",
    b"<html><body><p>a</p></body>tail<p>b</p><!-- c --></html>",
    b"<html><head><title>One</title></head><body><p>first</p></body></html>\n"
    b"<html lang='de'><head><title>Two</title></head><body class='notes'><p>second</p></body>"
    b"</html>after",
    b"<html><head><title>only a head</title></head></html><body><h2>S</h2>x</body>",
    b"<html><body><article><p>in</p></article></body></html><article><p>out</p></article>",
]


@pytest.mark.parametrize("page", PAGES)
def test_the_stream_reads_the_fixtures_as_the_tree_walk(page: bytes) -> None:
    _same(page)


def test_the_stream_golden_output() -> None:
    page = walk.read_page(PAGES[1], "page.html", article=True)
    assert page.paragraphs == [
        Paragraph("Agua", kind="heading", heading_path=("Agua",)),
        Paragraph("Los jardines necesitan agua.", id="2", heading_path=("Agua",)),
        Paragraph("Cada mañana.", id="3", heading_path=("Agua",)),
    ]
    assert (page.h1, page.first_h1, page.title, page.lang) == ("Agua", "Agua", "Título", "es")
    mixed = walk.read_page(PAGES[2], "page.html").paragraphs
    assert [(p.text, p.kind) for p in mixed] == [
        ("one", "p"),
        ("two", "p"),
        ("threefour", "p"),
        ("five", "p"),
    ]  # fmt: skip  (a script inside a paragraph is dropped, not a cut)


def test_text_after_the_body_or_the_page_is_read_in_order() -> None:
    """What follows ``</body>`` or ``</html>`` (a stray closing tag, two pages
    saved into one file) was dropped silently by both readers: libxml2 puts it
    after the body, or in another root element. A browser shows it at the end
    of the body, and so it is read, in order, by the stream and the tree."""
    cases = {
        b"<p>main</p></html><p>after</p>": ["main", "after"],
        b"<html><body><p>a</p></body>tail<p>b</p></html>": ["a", "tail", "b"],
        PAGES[-3]: ["first", "second", "after"],  # two pages in one file
        b"<html></html>Gardens": ["Gardens"],
    }
    for data, texts in cases.items():
        page = walk.read_page(data, "page.html")
        assert [p.text for p in page.paragraphs] == texts, data
        assert _tree_read(data, "page.html", article=False)[0] == page.paragraphs
    two = walk.read_page(PAGES[-3], "page.html")
    assert (two.title, two.lang) == ("One", None)  # the first page's, a stray head is not read
    assert [p.kind for p in two.paragraphs] == ["p", "p", "p"]  # the second body's class is gone
    # an <article> after </html> is the page's first article when none comes before
    late = walk.read_page(PAGES[-5], "page.html", article=True)
    assert [p.text for p in late.paragraphs] == ["Late", "after"]
    assert (late.h1, late.first_h1) == ("Late", "Late")
    # one before it stays the article: what follows is outside it
    first = walk.read_page(PAGES[-1], "page.html", article=True)
    assert [p.text for p in first.paragraphs] == ["in"]
    assert [p.text for p in walk.read_page(PAGES[-1], "page.html").paragraphs] == ["in", "out"]


def test_verses_after_the_page_are_read_by_the_bible_reader(tmp_path) -> None:  # noqa: ANN001
    from jw_rag.ingest.bible import parse_bible_chapter

    path = tmp_path / "john-3.html"
    path.write_bytes(
        b'<html><body><p id="v43003016">For God so loved the world.</p></body></html>'
        b'<p id="v43003017">For God sent not his Son.</p>'
    )
    doc = parse_bible_chapter(path)
    assert [p.text for p in doc.paragraphs] == [
        "For God so loved the world.",
        "For God sent not his Son.",
    ]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"", "page.html is empty; pass a page with content"),
        (b"   \n", "page.html is empty"),
        (b"<p>" + b"\x00\x01\x02" * 400, r"is not HTML \(it holds binary data\)"),
        (b"<p>caf\xe9 au lait \x81</p>", "is not UTF-8"),
        (b'<meta charset="nope-9"><p>caf\xe9</p>', "does not decode as its declared charset"),
        (b"<!-- only a comment -->", r"is not parseable HTML \(Document is empty\)"),
        (b"<div>" * 600 + b"deep", "nests its elements more than 512 deep"),
    ],
)
def test_bad_pages_are_the_same_one_line_errors(data: bytes, error: str) -> None:
    for article in (False, True):
        with pytest.raises(IngestError, match=error) as caught:
            walk.read_page(data, "page.html", article=article)
        assert "\n" not in str(caught.value)
        assert _outcome(_tree_read, data, article) == ("error", str(caught.value))


def test_a_page_past_libxml2s_own_depth_limit_is_the_same_error_without_its_line() -> None:
    """libxml2 stops building a tree at 2,048 levels and says on which line; fed
    to a parser target it reads on, and the stream says the same without the line."""
    data = b"<div>" * 3000 + b"deep"
    with pytest.raises(IngestError) as caught:
        walk.read_page(data, "page.html")
    assert str(caught.value) == (
        "page.html nests its elements more than 512 deep, past what this reader walks: its "
        "text would be cut there; flatten the page, or save its text and ingest that"
    )
    old = _outcome(_tree_read, data, False)[1]
    assert old.startswith("page.html nests its elements more than 512 deep at line 1 (")


def test_the_tag_and_paragraph_caps_still_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    import jw_rag.ingest._html as html
    import jw_rag.ingest._source as source

    monkeypatch.setattr(html, "MAX_TAGS", 10)
    with pytest.raises(IngestError, match=r"holds 12 tags, more than the 10 one page may hold"):
        walk.read_page(b"<p>a</p>" * 6, "page.html")
    monkeypatch.setattr(html, "MAX_TAGS", 1000)
    monkeypatch.setattr(source, "MAX_PARAGRAPHS", 5)
    assert len(walk.read_page(b"<p>a</p>" * 5, "page.html").paragraphs) == 5
    with pytest.raises(IngestError, match=r"page\.html holds more than 5 paragraphs"):
        walk.read_page(b"<p>a</p>" * 6, "page.html")
    # an article later in the page is what counts, not the paragraphs before it
    page = walk.read_page(b"<p>a</p>" * 9 + b"<article><p>b</p></article>", "page.html",
                          article=True)  # fmt: skip
    assert [p.text for p in page.paragraphs] == ["b"]


# -- generated markup --------------------------------------------------------------

_WORDS = st.sampled_from(
    ["Gardens", "need", "water", " ", "  ", "\n", "\t", "3", "12.", "&amp;", "&lt;", "&nbsp;",
     "&bogus;", "caf\u00e9", "\u00ad", "\u200b", "<", ">", "&", "x\ny", "  \n  ", "",
     "\x01", "\x0b", "\u0391\u03b8\u03ae\u03bd\u03b1", "\U0001f600", "\r\n"]
)  # fmt: skip
_TAGS = ["p", "div", "span", "b", "i", "a", "li", "ul", "ol", "h1", "h2", "h3", "pre", "br",
         "sup", "table", "tr", "td", "blockquote", "article", "section", "script", "style",
         "nav", "head", "title", "body", "html", "em", "aside", "img", "hr", "template", "dl",
         "dt", "dd", "form", "button", "noscript", "figure", "figcaption", "u"]  # fmt: skip
_ATTRS = st.sampled_from(
    ["", ' class="parNum"', ' class="fn"', ' class="footnote"', ' data-pid="12"',
     ' data-pid=" 3 "', ' class="notes x"', ' epub:type="noteref"', ' lang="pt"',
     ' class="FootnoteLink"', ' data-pid="a1"', ' xml:lang="de"']
)  # fmt: skip


@st.composite
def _markup(draw: st.DrawFn, depth: int = 0) -> str:
    pieces: list[str] = []
    for _ in range(draw(st.integers(0, 5 if depth < 4 else 1))):
        choice = draw(st.integers(0, 9))
        if choice <= 3 or depth >= 5:
            pieces.append(draw(_WORDS))
        elif choice == 4:
            pieces.append(draw(st.sampled_from(["<!-- c -->", "<?php x ?>", "<br>", "<br/>",
                                                "</p>", "</div>", "<p>", "<li>", "</b>", "<td>",
                                                "<h2>", "</h2>", "<![CDATA[x]]>", "<hr>"])))  # fmt: skip
        else:
            tag = draw(st.sampled_from(_TAGS))
            attrs = draw(_ATTRS)
            inner = draw(_markup(depth + 1))
            close = draw(st.sampled_from([f"</{tag}>", f"</{tag}>", ""]))  # unclosed too
            pieces.append(f"<{tag}{attrs}>{inner}{close}")
    return "".join(pieces)


@st.composite
def _pages(draw: st.DrawFn) -> bytes:
    body = draw(_markup())
    head = draw(st.sampled_from([
        "", "<!DOCTYPE html>", '<?xml version="1.0" encoding="utf-8"?>\n',
        "<html><head><title>T <b>x</b></title></head><body>", '<html lang="en"><body>',
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><meta charset="utf-8"/></head>',
        "<!-- lead --><html><body class='footnotes'>",
    ]))  # fmt: skip
    tail = draw(st.sampled_from(["", "</body></html>", "</html><!-- after -->", "<p>late",
                                 "</body>", "</html>", "</html>\n<html><body>"]))  # fmt: skip
    if tail.endswith(("</body>", "</html>", "<body>")):  # more markup after it
        tail += draw(_markup())
    lead = draw(st.sampled_from(["", " \n", "\x01"]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16"]))
    return (lead + head + body + tail).encode(encoding, "surrogatepass")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=_pages(), feed=st.sampled_from([1, 7, 64, 1 << 20]))
def test_the_stream_reads_any_page_as_the_tree_walk(page: bytes, feed: int) -> None:
    """Same paragraphs, heading paths, ids, kinds, titles, language and errors,
    whatever the markup and however the page is cut into pieces for the parser."""
    old = walk.FEED_CHARS
    walk.FEED_CHARS = feed
    try:
        _same(page)
    finally:
        walk.FEED_CHARS = old


def test_an_epub_chapter_is_read_as_written_in_the_book(tmp_path) -> None:  # noqa: ANN001
    """The chapter's own markup is parsed (ebooklib's rebuilt copy of it dropped
    text sitting directly in ``<body>``), with the same rules as an HTML page."""
    from jw_rag.ingest import parse_epub
    from tests.robust.hostile_files import epub_bytes

    chapter = (b'<?xml version="1.0" encoding="utf-8"?><html><body>Loose lead text'
               b"<h1>One</h1><p><b>Hel</b><i>lo</i> world<sup>1</sup></p></body></html>")  # fmt: skip
    path = tmp_path / "b.epub"
    path.write_bytes(epub_bytes(chapter=chapter))
    (doc,) = parse_epub(path)
    assert doc.paragraphs == [
        Paragraph("Loose lead text"),
        Paragraph("One", kind="heading", heading_path=("One",)),
        Paragraph("Hello world", heading_path=("One",)),
    ]
    assert doc.paragraphs == walk.read_page(chapter, "ch1.xhtml").paragraphs


def test_many_stray_roots_are_gathered_in_linear_time() -> None:
    """Text after each of 60,000 ``</html>`` (libxml2 opens a root element for
    each): gathering them counted the body's children each time (lxml counts
    one by one), minutes for this page; a fraction of a second now."""
    import time

    data = b"<p>a</p>" + b"</html>x<p>y</p>" * 60_000
    began = time.perf_counter()
    root = parse_html(data, "page.html")
    assert len(root.find("body")) == 60_001
    assert time.perf_counter() - began < 10
    paragraphs = walk.read_page(data, "page.html").paragraphs
    assert len(paragraphs) == 120_001 and paragraphs[-2:] == [Paragraph("x"), Paragraph("y")]
