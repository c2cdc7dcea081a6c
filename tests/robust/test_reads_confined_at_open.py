"""Every reader checks a local file at the moment it opens it, and reads the file
it checked: a link to outside the allowed folder (the file itself, a folder on
its path, or a file inside a folder being ingested) is refused, ``..`` and odd
spellings resolve before the check, and a link swapped in right after the
check is refused instead of followed."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jw_rag.errors import ConfigError, IngestError, JwRagError
from jw_rag.ingest import (
    checking_paths,
    collecting_left_out,
    load_documents,
    load_folder,
    parse_article,
    parse_bible_chapter,
    parse_epub,
    parse_jw_library_backup,
    parse_jwpub,
    parse_markdown,
    parse_pdf,
    parse_text,
)
from tests.jwpub.jw_formats_builder import Doc, Note, write_backup, write_jwpub
from tests.robust.hostile_files import epub_bytes

SECRET = "Outside words nobody may index"
ARTICLE = f"<html><body><article><p data-pid='1'>{SECRET}.</p></article></body></html>"
CHAPTER = "<html><body><p><span id='v1001001'>1</span> {} </p></body></html>"


def _write(path: Path, kind: str, words: str) -> Path:
    """A small valid file of ``kind`` at ``path`` holding ``words``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "jwpub":
        html = f"<html><body><p data-pid='1'>{words}.</p></body></html>"
        return write_jwpub(path, [Doc(1, 1102024101, "Title", html)])
    if kind == "backup":
        return write_backup(path, [Note("g-1", "Title", words)])
    if kind == "epub":
        path.write_bytes(epub_bytes(chapter=f"<html><body><p>{words}.</p></body></html>".encode()))
        return path
    text = {
        "article": ARTICLE.replace(SECRET, words),
        "bible": CHAPTER.format(words),
        "markdown": f"# Title\n\n{words}.\n",
        "text": f"{words}.\n",
        "pdf": "%PDF-1.4\nnot really a PDF, but a file the check lets through\n",
    }[kind]
    path.write_text(text, encoding="utf-8")
    return path


#: reader -> (file suffix, kind of file it reads, the reader)
READERS: dict[str, tuple[str, str, Callable[[Path], Any]]] = {
    "article": (".html", "article", parse_article),
    "bible": (".html", "bible", lambda p: parse_bible_chapter(p, book="Genesis", chapter=1)),
    "markdown": (".md", "markdown", parse_markdown),
    "text": (".txt", "text", parse_text),
    "pdf": (".pdf", "pdf", parse_pdf),
    "epub": (".epub", "epub", parse_epub),
    "jwpub": (".jwpub", "jwpub", parse_jwpub),
    "backup": (".jwlibrary", "backup", parse_jw_library_backup),
    "load_documents": (".md", "markdown", load_documents),
}


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """``(root, outside)``; reads inside the block are checked against ``root``."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    allowed = root.resolve()

    def check(shown: str, resolved: Path) -> None:
        if not resolved.is_relative_to(allowed):
            raise ConfigError(f"{shown} is outside the allowed roots ({allowed})")

    with checking_paths(check):
        yield root, outside


def _refused(read: Callable[[Path], Any], path: Path) -> str:
    with pytest.raises(JwRagError) as info:
        read(path)
    message = str(info.value)
    assert "\n" not in message and SECRET not in message
    return message


@pytest.mark.parametrize("kind", READERS)
def test_each_reader_refuses_links_that_lead_outside(sandbox: tuple[Path, Path], kind: str) -> None:
    root, outside = sandbox
    suffix, written, read = READERS[kind]
    secret = _write(outside / f"secret{suffix}", written, SECRET)
    inside = _write(root / f"inside{suffix}", written, "Inside words")
    if kind == "pdf":  # not a real PDF: past the check, the parser refuses it
        assert "outside" not in _refused(read, inside)
    else:
        assert read(inside)  # an allowed file reads as usual
    (root / f"link{suffix}").symlink_to(secret)
    (root / "folder-link").symlink_to(outside, target_is_directory=True)
    (root / "sub").mkdir()
    for path in (
        root / f"link{suffix}",  # the file is a link
        root / "folder-link" / f"secret{suffix}",  # a folder on the way is a link
        root / "sub" / ".." / ".." / "outside" / f"secret{suffix}",  # .. climbs out
        Path(str(root) + "//sub/../../outside/.") / f"secret{suffix}",  # odd spelling
        secret,  # an absolute path outside
    ):
        assert "is outside the allowed roots" in _refused(read, path), path


def test_a_folder_is_checked_and_so_is_every_file_in_it(sandbox: tuple[Path, Path]) -> None:
    root, outside = sandbox
    _write(root / "notes" / "a.md", "markdown", "Inside words")
    docs, skipped = load_folder(root / "notes")
    assert [d.source_id for d in docs] == ["notes/a"] and not skipped
    _write(outside / "secret.md", "markdown", SECRET)
    (root / "notes" / "b.md").symlink_to(outside / "secret.md")
    for skip_bad in (False, True):  # a refused link is left out, not a bad file to skip
        with collecting_left_out() as left:
            docs, skipped = load_folder(root / "notes", skip_bad=skip_bad)
        assert [d.source_id for d in docs] == ["notes/a"] and not skipped
        assert SECRET not in " ".join(d.text for d in docs)
        assert "1 link to a file outside the allowed roots (b.md)" in left[0].message
    (root / "notes" / "a.md").unlink()  # the link alone: nothing to read, said in one line
    refused = _refused(load_folder, root / "notes")
    assert "nothing to read, left out 1 link to a file outside" in refused
    (root / "outside-folder").symlink_to(outside, target_is_directory=True)
    for folder in (root / "outside-folder", outside, root / ".." / "outside"):
        assert "is outside the allowed roots" in _refused(load_folder, folder)
        assert "is outside the allowed roots" in _refused(load_documents, folder)


def _swap_to_link(path: Path, target: Path) -> None:
    """Replace ``path`` (a file or folder) by a link to ``target``, in one rename."""
    link = path.with_name(path.name + ".swap")
    link.symlink_to(target, target_is_directory=target.is_dir())
    if path.is_dir() and not path.is_symlink():
        path.rename(path.with_name(path.name + ".old"))
    os.replace(link, path)


@pytest.mark.parametrize("swapped", ["file", "folder"])
@pytest.mark.parametrize("kind", ["text", "jwpub", "backup", "epub"])
def test_a_link_swapped_in_right_after_the_check_is_not_followed(
    tmp_path: Path, kind: str, swapped: str
) -> None:
    """The check itself swaps the link in once it has passed: the read that
    follows must not reach the outside file."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    suffix, _, read = READERS[kind]
    inside = _write(root / "sub" / f"doc{suffix}", kind, "Inside words")
    _write(outside / f"doc{suffix}", kind, SECRET)
    allowed, checked = root.resolve(), []

    def check(shown: str, resolved: Path) -> None:
        checked.append(resolved)
        if not resolved.is_relative_to(allowed):
            raise ConfigError(f"{shown} is outside the allowed roots ({allowed})")
        if len(checked) == 1:  # passed: now the attacker swaps
            if swapped == "file":
                _swap_to_link(inside, outside / f"doc{suffix}")
            else:
                _swap_to_link(root / "sub", outside)

    with checking_paths(check):
        message = _refused(read, inside)
    assert "is outside the allowed roots" in message
    assert len(checked) == 2 and not checked[1].is_relative_to(allowed)


def test_urls_and_odd_paths_are_one_line_errors_never_relative_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "https:" / "example.com" / "book.epub", "epub", SECRET)
    with pytest.raises(IngestError) as info:
        parse_epub("https://example.com/book.epub")
    assert str(info.value) == (
        "https://example.com/book.epub is a URL, and this reads a file: download it and pass "
        "the file path"
    )
    for bad, words in (("", "the path is empty"), ("missing.txt", "no such file"),
                       ("loop.txt", "cannot be read"), ("dir/", "is a directory")):  # fmt: skip
        (tmp_path / "dir").mkdir(exist_ok=True)
        if bad == "loop.txt":
            (tmp_path / "loop.txt").symlink_to(tmp_path / "loop.txt")
        with pytest.raises(IngestError) as info:
            parse_text(bad)
        assert words in str(info.value) and "\n" not in str(info.value), bad
    os.mkfifo(tmp_path / "pipe.txt")  # opened without waiting for a writer, then refused
    with pytest.raises(IngestError, match="is not a regular file"):
        parse_text(tmp_path / "pipe.txt")


def test_readers_racing_a_folder_that_flips_to_a_link_never_read_outside(tmp_path: Path) -> None:
    """Four threads read ``root/d/f.txt`` while another keeps renaming the real
    folder ``d`` away and a link to the outside folder in, and back: every read
    gives the inside words or a one-line refusal, never the outside words."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    _write(root / "d" / "f.txt", "text", "Inside words")
    _write(outside / "f.txt", "text", SECRET)
    allowed, stop = root.resolve(), threading.Event()

    def check(shown: str, resolved: Path) -> None:
        if not resolved.is_relative_to(allowed):
            raise ConfigError(f"{shown} is outside the allowed roots ({allowed})")

    def flip() -> None:
        while not stop.is_set():
            (root / "d").rename(root / "d.real")
            (root / "d.link").symlink_to(outside, target_is_directory=True)
            (root / "d.link").rename(root / "d")
            time.sleep(0.0005)
            (root / "d").rename(root / "d.link")
            (root / "d.link").unlink()
            (root / "d.real").rename(root / "d")
            time.sleep(0.0005)

    seen: Counter[str] = Counter()
    failures: list[BaseException] = []

    def read() -> None:
        with checking_paths(check):
            for _ in range(1500):
                try:
                    text = parse_text(root / "d" / "f.txt").paragraphs[0].text
                    seen["outside words" if SECRET in text else "inside words"] += 1
                except JwRagError as exc:
                    assert "\n" not in str(exc) and SECRET not in str(exc)
                    seen["refused or missing"] += 1
                except BaseException as exc:  # noqa: BLE001 - any other error is the failure
                    failures.append(exc)
                    return

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    readers = [threading.Thread(target=read) for _ in range(4)]
    for thread in readers:
        thread.start()
    for thread in readers:
        thread.join()
    stop.set()
    flipper.join()
    print(dict(seen))
    assert not failures, failures[:1]
    assert seen["outside words"] == 0 and seen["inside words"] > 0


def test_many_links_outside_make_one_short_note(sandbox: tuple[Path, Path]) -> None:
    root, outside = sandbox
    secret = _write(outside / "secret.txt", "text", SECRET)
    _write(root / "many" / "inside.txt", "text", "Inside words")
    for i in range(500):
        (root / "many" / f"link{i:03}.txt").symlink_to(secret)
    with collecting_left_out() as left:
        docs, _ = load_folder(root / "many")
    assert [d.source_id for d in docs] == ["many/inside"]
    note = left[0].message
    assert "500 links to files outside the allowed roots (link000.txt" in note
    assert "and 497 more" in note and len(note) < 400 and SECRET not in note
