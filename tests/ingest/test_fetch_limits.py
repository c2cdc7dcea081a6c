"""``fetch_limits``: a caller sets the size cap and the total deadline of the
fetches made inside a block; outside it the module's defaults hold."""

from __future__ import annotations

import http.server
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import fetch_limits, ingest_article
from jw_rag.store import SQLiteStore

PAGE = b"<html><body><article><p data-pid='1'>" + b"word " * 400 + b"</p></article></body></html>"


class _Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        if self.path == "/page":
            self.wfile.write(PAGE)
            return
        try:  # /silent: headers, then nothing for 30 s
            time.sleep(30)
        except OSError:
            pass

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def server(http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]) -> str:
    return http_pages(_Pages)


def test_the_cap_applies_inside_the_block_only(tmp_path: Path, server: str) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    with fetch_limits(max_bytes=1024), pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/page")
    assert "larger than 1 KiB" in str(info.value) and "\n" not in str(info.value)
    assert store.stats()["chunks"] == 0
    assert ingest_article(store, f"{server}/page").chunks >= 1  # the default cap again


def test_a_silent_server_is_cut_at_the_deadline_not_the_step_timeout(
    tmp_path: Path, server: str
) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    started = time.monotonic()
    with fetch_limits(deadline=0.5), pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/silent")
    assert time.monotonic() - started < 5  # the per-step timeout alone is 20 s
    assert "still downloading after 0.5 s" in str(info.value)
    assert store.stats()["chunks"] == 0


@pytest.mark.parametrize(("named", "words"), [({"max_bytes": 0}, "at least 1 byte"),
                                              ({"deadline": -1.0}, "seconds above 0")])  # fmt: skip
def test_limits_that_are_not_positive_are_refused(named: dict[str, float], words: str) -> None:
    with pytest.raises(ConfigError, match=words), fetch_limits(**named):  # type: ignore[arg-type]
        pass
