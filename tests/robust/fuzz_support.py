"""What the surface fuzz shares: its seed and case budget, a sandbox of files
to point commands at (inside and outside the roots, links, a FIFO, sentinels
that must survive), a snapshot of that tree, the checks every answer must
pass, and the tally printed at the end of the run (tests/robust/conftest.py).

``JW_FUZZ_SEED`` and ``JW_FUZZ_CASES`` vary the run (defaults: a fixed seed
and 2,400 cases, split between the CLI and the MCP server)."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import os
import re
import signal
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.jwpub.jw_formats_builder import Doc, Note, jwpub_database, write_backup, write_jwpub
from tests.robust import hostile_server
from tests.robust.bombs import gzip_zeros
from tests.robust.hostile_files import PNG, epub_bytes, snapshot

SEED = int(os.environ.get("JW_FUZZ_SEED", "25010"))
CASES = int(os.environ.get("JW_FUZZ_CASES", "2400"))
#: Seconds one case may take: every fetch in the fuzz has a 1.5 s deadline.
CASE_SECONDS = 10.0
#: Resident size the fuzzing process (or the server) may reach, in KiB.
RSS_LIMIT_KIB = 500 * 1000

#: Python's own messages: a library error that escaped as one of these names
#: no problem and no fix, whatever line it is printed on.
RAW_PYTHON = re.compile(
    r"Traceback|invalid literal for int|could not convert string to float|object has no "
    r"attribute|is not subscriptable|index out of range|unexpected keyword argument|"
    r"NoneType|arg is an empty sequence|Exceeds the limit \(\d+ digits\)|"
    r"takes \d+ positional argument|unhashable type|codec can't|KeyError|object is not "
    r"iterable|maximum recursion depth"
)


@dataclass
class Tally:
    """Cases run per surface, and the peak resident sizes seen."""

    cases: dict[str, int] = field(default_factory=dict)
    peaks: dict[str, int] = field(default_factory=dict)

    def count(self, surface: str) -> None:
        self.cases[surface] = self.cases.get(surface, 0) + 1

    def lines(self) -> list[str]:
        if not self.cases:
            return []
        runs = ", ".join(f"{n} {s}" for s, n in sorted(self.cases.items()))
        out = [f"surface fuzz: seed {SEED} (JW_FUZZ_SEED), {sum(self.cases.values())} cases "
               f"({runs}; JW_FUZZ_CASES={CASES})"]  # fmt: skip
        out += [
            f"  peak resident size of the {s}: {kib // 1000} MB" for s, kib in self.peaks.items()
        ]
        return out


TALLY = Tally()


# -- the sandbox ---------------------------------------------------------------

SENTINELS = {
    "project/package.json": b'{"name": "kept"}\n',
    "project/src/main.py": b"print('kept')\n",
    "outside/secret.txt": b"An outside secret about lamps.\n",
    "outside/notes.json": b"{}\n",
}
#: Folders a command may change: the store's, the home (caches) and the output folder.
WRITABLE = ("stores", "home", "out")


def _page(body: str) -> bytes:
    return f"<html><body><article>{body}</article></body></html>".encode()


def build_sandbox(base: Path) -> dict[str, Path]:
    """Write the sandbox under ``base``; returns its named places."""
    for rel, data in SENTINELS.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_bytes(data)
    root = base / "root"
    folder = root / "folder"
    folder.mkdir(parents=True)
    for name in WRITABLE:
        (base / name).mkdir()
    files = {
        "good.txt": b"Gardens need water every morning.\n\nThe soil keeps it for the roots.\n",
        "good.md": "# Título\n\nAgua para el jardín.\n\n## Dos\n\n- uno\n- dos\n".encode(),
        "page.html": _page(
            '<h1>Soul</h1><p data-pid="1">1 The soul dies.</p><p data-pid="2">'
            "However, hope remains.</p>"
        ),  # fmt: skip
        "bible.html": b"<html><body><h1>John 3</h1><p><sup>16</sup>For God loved the world."
        b" <sup>17</sup>He sent his Son.</p></body></html>",
        "ñandú 名前 ünïcode.txt": "Texto en español sobre el ñandú.\n".encode(),
        "empty.txt": b"",
        "spaces.txt": b"   \n\n  \t\n",
        "binary.txt": PNG,
        "cp1252.txt": "Coração e canção".encode("cp1252"),
        "nul.txt": b"Water\x00 and soil.\n",
        "markup.txt": _page("<p>markup in a text file</p>"),
        "book.epub": epub_bytes(),
        "broken.epub": epub_bytes()[:300],
        "fake.pdf": b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog",
        "zip.txt": b"PK\x03\x04" + b"\x00" * 40,
        "garbage.html": bytes(range(256)) * 8,
        "deep.html": b"<html><body>"
        + b"<div>" * 5000
        + b"<p>deep</p>"
        + b"</div>" * 5000
        + b"</body></html>",
        "longpid.html": _page(f'<p data-pid="{"7" * 200_000}">7 A long id.</p>'),
        "sup2.html": "<html><body><p><sup>²</sup>Squared.</p></body></html>".encode(),
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    (folder / "a.txt").write_bytes(b"First file of the folder.\n")
    (folder / "b.md").write_bytes(b"# B\n\nSecond file.\n")
    write_jwpub(root / "pub.jwpub", [Doc(1, 1, "T", _page('<p data-pid="1">Texto.</p>').decode())])
    db = jwpub_database([Doc(1, 1, "T", "<p>x</p>")], symbol="tp", year=2024, meps_language_index=0)
    (root / "db-only.jwpub").write_bytes(db)
    write_backup(root / "notes.jwlibrary", [Note("g1", "Nota", "Agua.\nSuelo."),
                                            Note("g2", "Other", "Lamps and oil.")])  # fmt: skip
    os.mkfifo(root / "pipe.txt")
    (root / "dir.txt").mkdir()
    (root / "link-out.txt").symlink_to(base / "outside" / "secret.txt")
    (root / "link-dir").symlink_to(base / "outside")
    (root / "loop.txt").symlink_to(root / "loop.txt")
    (root / "dangling.txt").symlink_to(root / "absent.txt")
    (root / "link-fifo.txt").symlink_to(root / "pipe.txt")
    long_name = root / ("l" * 200 + ".txt")
    long_name.write_bytes(b"A file with a long name.\n")
    return {"base": base, "root": root, "folder": folder, "outside": base / "outside",
            "stores": base / "stores", "home": base / "home", "out": base / "out"}  # fmt: skip


def tree(base: Path, store: Path | None = None) -> dict[str, str]:
    """Every path under ``base`` outside :data:`WRITABLE` and but ``store`` (with
    its journal files), with its kind and content hash."""
    out: dict[str, str] = {}
    skipped = {str(store), f"{store}-wal", f"{store}-shm", f"{store}-journal"} if store else set()
    for dirpath, dirnames, filenames in os.walk(base):
        rel_dir = os.path.relpath(dirpath, base)
        if rel_dir.split(os.sep)[0] in WRITABLE:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = os.path.relpath(path, base)
            if str(path) in skipped:
                continue
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_fifo():
                out[rel] = "fifo"
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def store_state(path: Path) -> Any:
    """The store's rows (see hostile_files.snapshot), or its bytes when it is no store."""
    if not path.exists():
        return None
    try:
        return snapshot(path)
    except sqlite3.DatabaseError:
        return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the checks ----------------------------------------------------------------


class CaseTimeout(Exception):
    """A case ran past :data:`CASE_SECONDS`."""


@contextlib.contextmanager
def deadline(seconds: float = CASE_SECONDS) -> Iterator[None]:
    """Interrupt the block (a blocking read included) after ``seconds``."""

    def expire(*_args: object) -> None:
        raise CaseTimeout(f"the case ran past {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def resident_kib(pid: int | str = "self") -> tuple[int, int]:
    """``(VmRSS, VmHWM)`` of a process, in KiB."""
    values = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            key = line.split(":")[0]
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(line.split()[1])
    return values["VmRSS"], values["VmHWM"]


def check_error_text(text: str, where: str) -> None:
    """One line that names the problem, not a Python internal."""
    assert "\n" not in text.strip(), f"{where}: more than one line: {text!r}"
    assert not RAW_PYTHON.search(text), f"{where}: a raw Python error: {text!r}"


# -- what the fuzz draws from --------------------------------------------------

LANGUAGES = ("en", "es", "pt", "auto", "EN", "xx", "", "español")
MODES = ("dense", "bm25", "hybrid", "sparse", "")
EXPANSIONS = ("none", "neighbors", "parent", "segment", "window", "")
EMBEDDERS = ("fake", "fake:8", "fake:0", "fake:x", "nope", "", "openai")
ROOT_FILES = (
    "good.txt", "good.md", "page.html", "bible.html", "ñandú 名前 ünïcode.txt", "empty.txt",
    "spaces.txt", "binary.txt", "cp1252.txt", "nul.txt", "markup.txt", "book.epub",
    "broken.epub", "fake.pdf", "zip.txt", "garbage.html", "deep.html", "longpid.html",
    "sup2.html", "pub.jwpub", "db-only.jwpub", "notes.jwlibrary", "pipe.txt", "dir.txt",
    "link-out.txt", "link-dir", "loop.txt", "dangling.txt", "link-fifo.txt", "folder",
    "absent.txt", "l" * 200 + ".txt", "l" * 300 + ".txt",
)  # fmt: skip
#: URL paths on the hostile server; the slow ones (about 1.5 s each) are rarer.
URL_PATHS = ("/gzip", "/deflate", "/br", "/bomb", "/gzip-bomb", "/start", "/to-file", "/loop",
             "/gzip", "/deflate", "/gzip") * 3 + ("/stall", "/slow")  # fmt: skip
OTHER_URLS = ("http://", "http://[::1", "ftp://example.org/x", "http://127.0.0.1:1/x",
              "https://127.0.0.1:1/", "http://user:pw@127.0.0.1:1/")  # fmt: skip

#: Chunker option keys worth trying, with the values each may take.
VALUES = st.sampled_from(
    (
        "0",
        "1",
        "-1",
        "80",
        "1500",
        "100.5",
        "1e9",
        "nan",
        "inf",
        "9" * 5000,
        "true",
        "no",
        "",
        "abc",
        "0x10",
        "1_000",
        "  7 ",
        "None",
    )  # fmt: skip
)
KEYS = ("max_chars", "min_chars", "target_chars", "overflow", "max_continuations", "window",
        "top_percent", "overlap", "overlap_chars", "prefix_headings", "separator", "strict",
        "max_prompt_chars", "nope", "")  # fmt: skip
NAMES = ("paragraph", "semantic", "structure", "page", "embedding", "parent-child", "llm",
         "Paragraph", "nope", "")  # fmt: skip


@st.composite
def chunker_specs(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(NAMES))
    options = [f"{k}={draw(VALUES)}" for k in draw(st.lists(st.sampled_from(KEYS), max_size=3))]
    if name == "embedding":  # never the default model: the model is not the point here
        options.append(f"embedder={draw(st.sampled_from(('fake', 'fake:4', 'nope')))}")
    if name == "llm":
        options.append(f"provider={draw(st.sampled_from(('fake', 'heuristic', 'nope')))}")
        if draw(st.integers(0, 9)) == 0:
            where = draw(st.sampled_from(("out/cache", "project", "outside")))
            options += [f"cache_dir={{base}}/{where}", "cache_max_bytes=0"]
    if name in ("semantic", "llm") and draw(st.integers(0, 9)) == 0:
        options.append(
            f"markers_path={{base}}/{draw(st.sampled_from(('root/good.txt', 'outside/notes.json', 'absent')))}"
        )
    if draw(st.integers(0, 19)) == 0:
        options.append(draw(st.text(max_size=12)))
    return name + (":" + ",".join(options) if options else "")


def sources(sandbox: dict[str, Path], server: str) -> st.SearchStrategy[str]:
    """A file, folder, device or URL to read, good or hostile."""
    root = sandbox["root"]
    return st.one_of(
        st.sampled_from([str(root / name) for name in ROOT_FILES]),
        st.sampled_from(
            [
                str(sandbox["outside"] / "secret.txt"),
                str(sandbox["base"] / "project"),
                "/dev/zero",
                "/dev/null",
                "",
                "-",
                str(root) + "/" + "x" * 5000,
                str(root / "folder") + "/../good.txt",
            ]
        ),  # fmt: skip
        st.sampled_from([server + path for path in URL_PATHS] + list(OTHER_URLS)),
    )


@contextlib.contextmanager
def hostile_pages() -> Iterator[str]:
    """tests/robust/hostile_server.py served on a loopback port, with a 1 GiB
    gzip bomb beside its pages; the base URL."""
    hostile_server.ENCODED["/gzip-bomb"] = ("gzip", gzip_zeros(1024))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), hostile_server.Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        del hostile_server.ENCODED["/gzip-bomb"]


__all__ = [
    "CASES",
    "EMBEDDERS",
    "EXPANSIONS",
    "LANGUAGES",
    "MODES",
    "chunker_specs",
    "hostile_pages",
    "sources",
    "CASE_SECONDS",
    "CaseTimeout",
    "RAW_PYTHON",
    "RSS_LIMIT_KIB",
    "SEED",
    "SENTINELS",
    "TALLY",
    "WRITABLE",
    "build_sandbox",
    "check_error_text",
    "deadline",
    "resident_kib",
    "store_state",
    "tree",
]
