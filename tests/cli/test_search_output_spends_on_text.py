"""A default search's JSON spends its characters on the text it delivers:
at most 1.3 times the delivered text, for every bundled question, through
the CLI (``jw rag search --json``) and the MCP ``search`` tool (one shape,
:mod:`jw_rag.hits`)."""

from __future__ import annotations

import json

import pytest
import yaml

from jw_cli.app import main
from jw_eval.bench import DEFAULT_DATASET
from jw_rag.hits import hit_records
from jw_rag.retrieve import retrieve
from jw_rag.store import open_store

BENCH = DEFAULT_DATASET
RATIO = 1.3


def _questions() -> list[str]:
    rows = yaml.safe_load((BENCH / "doctrinal_queries.yaml").read_text(encoding="utf-8"))
    return [r["query"] for r in rows]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("corpus") / "s.sqlite")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JW_EMBEDDER", "fake")
        for language in ("en", "es", "pt"):
            assert (
                main(
                    ["--store", path, "rag", "ingest", "article", str(BENCH / "corpus" / language)]
                )
                == 0
            )
    return path


def test_cli_json_is_at_most_1_3_times_the_delivered_text(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    ratios = []
    for question in _questions():
        assert main(["--store", store, "rag", "search", question, "--json"]) == 0
        out = capsys.readouterr().out
        hits = json.loads(out)
        text = sum(len(h["text"]) for h in hits)
        assert hits and text
        ratios.append((len(out) / text, question))
    worst = max(ratios)
    assert worst[0] <= RATIO, worst


def test_mcp_search_text_is_at_most_1_3_times_the_delivered_text(store: str) -> None:
    from jw_mcp.server import compact_result

    with open_store(store, read_only=True) as st:
        for question in _questions()[:30]:
            result = compact_result(hit_records(retrieve(st, question)))
            assert result.structured_content is None  # said once, not twice
            [content] = result.content
            hits = json.loads(content.text)
            assert len(content.text) <= RATIO * sum(len(h["text"]) for h in hits), question


def test_each_hit_says_its_text_once_in_reading_order(store: str) -> None:
    with open_store(store, read_only=True) as st:
        delivery = retrieve(st, "Does the soul die?")
        records = hit_records(delivery)
    for hit, record in zip(delivery, records, strict=True):
        assert record["text"] == "\n\n".join(c.text for c in hit.expanded)
        assert record["text"].count(hit.chunk.text) == 1
        start, end = record.get("hit", [0, len(record["text"])])
        assert record["text"][start:end] == hit.chunk.text
        assert not any(str(v).startswith("/") for v in record.values())  # no server paths
        assert all(isinstance(p, str) for p in record.get("para_ids", []))
        assert "metadata" not in record and "expanded" not in record


def test_a_source_title_is_given_once_per_search(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--store", store, "rag", "search", "¿El alma muere?", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    seen: set[str] = set()
    for hit in hits:
        title = _title(hit["source_id"])
        heading = hit.get("heading", "")
        if hit["source_id"] in seen:
            assert not heading.startswith(title), hit
        else:
            assert heading.startswith(title), hit
        seen.add(hit["source_id"])
    assert len(seen) < len(hits)  # some source gave more than one hit


def _title(source_id: str) -> str:
    from jw_rag.ingest.article import parse_article

    language, name = source_id.split("/")
    return parse_article(BENCH / "corpus" / language / f"{name}.html").title


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_a_blank_query_is_refused_not_answered_with_arbitrary_hits(
    store: str, query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a blank query used to deliver 10 hits ranked against nothing (CLI) and
    # the MCP tool's min_length let "   " through to the same
    capsys.readouterr()
    assert main(["--store", store, "rag", "search", query, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == "error: the query is empty: give words to search for"
