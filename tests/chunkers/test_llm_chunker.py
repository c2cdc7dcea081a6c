"""LLMChunker with the fake provider: golden actions, validation, conflicts,
size caps, fallbacks, and the bundled corpus through the heuristic provider."""

from __future__ import annotations

import json
import logging

import pytest

from jw_gen.errors import GenerationError as GenError
from jw_gen.providers import FakeProvider, HeuristicProvider
from jw_rag.chunkers import get_chunker
from jw_rag.chunkers.llm_chunker import (
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    LLMChunker,
    Split,
    actions_schema,
    parse_answer,
)
from jw_rag.chunkers.validate import check_chunks
from jw_rag.errors import ConfigError, GenerationError

# Four paragraphs of ~300 chars: with max_chars=400 the semantic chunker keeps
# each alone, except D which opens with a marker ("However") and joins C.
A = "The first section opens with a claim about ancient libraries. " * 5
B = "In the archives the claim about ancient libraries holds up as well. " * 4
C = "A new subject starts here about river boats and their cargo routes. " * 4
D = "However river boats also carried letters along their cargo routes. " * 2
PARAS = [A.strip(), B.strip(), C.strip(), D.strip()]


def _chunker(answers, **kw) -> tuple[LLMChunker, FakeProvider]:
    fake = FakeProvider(answers)
    return LLMChunker(provider=fake, max_chars=400, min_chars=10, **kw), fake


def _answer(*actions) -> str:
    return json.dumps({"actions": list(actions)})


def _semantic_spans() -> list[dict]:
    chunker, _ = _chunker([])
    return [
        c.metadata["span"]
        for c in chunker.semantic.chunk(PARAS, "doc", metadata={"language": "en"})
    ]


def test_semantic_input_shape() -> None:
    assert [(s["start_para"], s["end_para"]) for s in _semantic_spans()] == [(0, 0), (1, 1), (2, 3)]


def test_prompt_numbers_chunks_and_their_paragraphs() -> None:
    chunker, fake = _chunker([_answer()])
    chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    prompt = fake.prompts[0]
    assert "[chunk 2] (" in prompt
    lines = prompt.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("[chunk 2]")))
    assert lines[at + 1].startswith("(1) A new subject") and lines[at + 2].startswith("(2) However")
    assert fake.settings == [(0.0, 0)]
    assert "Size limit: 520 characters" in prompt
    assert "[chunk 0] (" in prompt and " characters, 1 paragraph)" in prompt
    assert lines[at].endswith(" characters, 2 paragraphs)")
    assert lines[-1] == "Answer with the JSON object only; chunk numbers are 0 to 2."


def test_the_instructions_show_the_shape_without_a_concrete_index() -> None:
    assert PROMPT_VERSION == "2"
    # nothing a model can copy as a valid action: placeholders only
    # (the paragraph labels "(1), (2), ..." describe the list, not an answer)
    described = SYSTEM_PROMPT.replace("(1), (2), ...", "").replace("C+1", "").replace("P+1", "")
    assert not any(ch.isdigit() for ch in described)
    assert '{"op": "split", "chunk_index": C, "after_paragraph": P}' in SYSTEM_PROMPT
    assert '{"op": "merge", "chunk_indices": [C, C+1]}' in SYSTEM_PROMPT
    assert "premise" in SYSTEM_PROMPT and "conclusion" in SYSTEM_PROMPT


def test_each_call_hands_over_the_schema_of_its_chunks() -> None:
    paras = PARAS * 6
    chunker, fake = _chunker(lambda prompt: _answer(), max_prompt_chars=1200)
    chunker.chunk(paras, "long", metadata={"language": "en"})
    assert fake.calls > 1 and len(fake.schemas) == fake.calls
    for prompt, schema in zip(fake.prompts, fake.schemas, strict=True):
        shown = [
            int(line.split()[1][:-1]) for line in prompt.splitlines() if line.startswith("[chunk ")
        ]
        counts = [
            int(line.split(", ")[1].split()[0])
            for line in prompt.splitlines()
            if line.startswith("[chunk ")
        ]
        sizes = [
            int(line.split("(")[1].split()[0])
            for line in prompt.splitlines()
            if line.startswith("[chunk ")
        ]
        assert schema == actions_schema(
            counts, first_index=shown[0], sizes=sizes, size_limit=chunker.cap
        )
        assert shown == list(range(shown[0], shown[0] + len(shown)))


def test_split_and_merge_golden() -> None:
    answer = _answer(
        {"op": "split", "chunk_index": 2, "after_paragraph": 1},
        {"op": "merge", "chunk_indices": [0, 1]},
    )
    chunker, fake = _chunker([answer], cache=False, overflow=1.0)  # cap 800 fits A+B
    chunks = chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    check_chunks(PARAS, chunks, max_len=chunker.cap)
    assert [c.metadata["para_ids"] for c in chunks] == [[0, 1], [2], [3]]
    assert [c.metadata["llm_actions"] for c in chunks] == [
        [{"op": "merge", "chunk_indices": [0, 1]}],
        [{"op": "split", "chunk_index": 2, "after_paragraph": 1}],
        [{"op": "split", "chunk_index": 2, "after_paragraph": 1}],
    ]
    assert {c.metadata["llm_status"] for c in chunks} == {"ok"}
    assert chunks[0].metadata["merge_reason"] == "llm_merge"
    assert chunks[0].metadata["chunker"] == "llm" and fake.calls == 1


def test_unchanged_chunks_record_no_action() -> None:
    chunker, _ = _chunker([_answer({"op": "merge", "chunk_indices": [0, 1]})])
    chunks = chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    check_chunks(PARAS, chunks, max_len=chunker.cap)
    # A+B is ~650 chars > cap 520: refused and recorded on both chunks it named.
    assert len(chunks) == 3
    assert chunks[2].metadata["llm_actions"] == []
    assert chunks[0].metadata["llm_rejected"][0]["reason"].startswith("too_long: ")
    assert chunks[1].metadata["llm_rejected"] == chunks[0].metadata["llm_rejected"]
    assert "llm_rejected" not in chunks[2].metadata


def test_conflict_first_action_wins_and_answer_is_not_cached() -> None:
    answer = _answer(
        {"op": "split", "chunk_index": 2, "after_paragraph": 1},
        {"op": "merge", "chunk_indices": [1, 2]},
    )
    chunker, fake = _chunker([answer, answer])
    first = chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    check_chunks(PARAS, first, max_len=chunker.cap)
    assert [c.metadata["para_ids"] for c in first] == [[0], [1], [2], [3]]
    rejected = first[1].metadata["llm_rejected"]
    assert rejected == [
        {
            "action": {"op": "merge", "chunk_indices": [1, 2]},
            "reason": "conflict: a chunk it names is in an earlier action",
        }
    ]
    chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    assert fake.calls == 2  # not cached


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("I think the chunks look fine.", "no JSON object"),
        ('{"changes": []}', '"actions" list'),
        (_answer({"op": "split", "chunk_index": 9, "after_paragraph": 1}), "outside 0..2"),
        (_answer({"op": "merge", "chunk_indices": [0, 2]}), "not a run of adjacent"),
        (_answer({"op": "merge", "chunk_indices": [1]}), "2 or more"),
        (_answer({"op": "split", "chunk_index": 2, "after_paragraph": 2}), "must be in 1..1"),
        (_answer({"op": "split", "chunk_index": 0, "after_paragraph": 1}), "has 1 paragraph"),
        (_answer({"op": "split", "chunk_index": True, "after_paragraph": 1}), "integer"),
        (_answer({"op": "rewrite", "chunk_index": 0}), "op must be"),
        ('{"actions": [{"op": "merge", "chunk_indices": [0, 1' + "9" * 5000 + "]}]}", "no JSON"),
        (_answer(*[{"op": "merge", "chunk_indices": [0, 1]}] * 50_000), "50000 actions for 3"),
    ],
    ids=lambda v: v[:40] if isinstance(v, str) else None,
)
def test_garbage_answers_leave_semantic_chunks_and_are_not_cached(answer, reason) -> None:
    chunker, fake = _chunker([answer, answer])
    chunks = chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    check_chunks(PARAS, chunks, max_len=chunker.cap)
    assert [c.metadata["span"] for c in chunks] == _semantic_spans()
    status = chunks[0].metadata["llm_status"]
    assert status.startswith("invalid_answer: ") and reason in status
    assert all(c.metadata["llm_actions"] == [] for c in chunks)
    chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    assert fake.calls == 2
    assert chunker.cache is not None and chunker.cache.entries() == []


def test_prose_and_fences_are_tolerated() -> None:
    text = 'Sure!\n```json\n{"actions": [{"op": "split", "chunk_index": 2, "after_paragraph": 1}]}\n```\nDone.'
    assert parse_answer(text, [1, 1, 2]) == [Split(chunk_index=2, after_paragraph=1)]


def test_provider_error_falls_back_logs_once_and_is_not_cached(caplog) -> None:
    err = GenError("cannot reach Ollama at http://127.0.0.1:9: start it with `ollama serve`")
    chunker, fake = _chunker([err, err, err])
    with caplog.at_level(logging.WARNING, logger="jw_rag.chunkers.llm_chunker"):
        for source in ("doc-a", "doc-b", "doc-c"):
            chunks = chunker.chunk(PARAS, source, metadata={"language": "en"})
    assert chunks[0].metadata["llm_status"] == f"provider_error: {err}"
    assert [c.metadata["span"] for c in chunks] == _semantic_spans()
    assert fake.calls == 3
    assert len([r for r in caplog.records if "cannot reach Ollama" in r.getMessage()]) <= 1
    assert chunker.cache is not None and chunker.cache.entries() == []


def test_strict_raises_the_toolkit_error() -> None:
    chunker, _ = _chunker([GenError("boom: fix it")], strict=True)
    with pytest.raises(GenerationError, match="boom: fix it"):
        chunker.chunk(PARAS, "doc", metadata={"language": "en"})


def test_no_actions_status_and_cache_hit() -> None:
    chunker, fake = _chunker([_answer()])
    first = chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    again = chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    assert first[0].metadata["llm_status"] == "no_actions"
    assert again[0].metadata["llm_status"] == "cached"
    assert fake.calls == 1
    assert [c.text for c in first] == [c.text for c in again]


def test_long_documents_are_sent_in_several_calls() -> None:
    paras = PARAS * 6
    chunker, fake = _chunker(lambda prompt: _answer(), max_prompt_chars=1200)
    chunks = chunker.chunk(paras, "long", metadata={"language": "en"})
    check_chunks(paras, chunks, max_len=chunker.cap)
    assert fake.calls > 1
    shown = [line for p in fake.prompts for line in p.splitlines() if line.startswith("[chunk ")]
    assert len(shown) == len(chunks)  # each chunk shown exactly once


def test_registry_factory_and_bad_provider() -> None:
    chunker = get_chunker("llm", provider="heuristic", max_chars=900)
    assert isinstance(chunker, LLMChunker) and chunker.semantic.max_chars == 900
    with pytest.raises(ConfigError, match="unknown generation provider 'nope'.*valid names"):
        get_chunker("llm", provider="nope")


def test_heuristic_provider_over_bundled_corpus_keeps_provenance(bench_docs) -> None:
    chunker = LLMChunker(provider=HeuristicProvider(), cache=False)
    ops = 0
    for doc_id, doc in bench_docs:
        chunks = chunker.chunk(doc.paragraphs, doc_id, metadata={"language": doc.language})
        check_chunks(doc.paragraphs, chunks, max_len=chunker.cap)
        assert {c.metadata["llm_status"] for c in chunks} <= {"ok", "no_actions"}
        ops += sum(len(c.metadata["llm_actions"]) for c in chunks)
    assert ops > 10


def test_a_deeply_nested_answer_is_rejected_not_a_crash() -> None:
    chunker, _ = _chunker(["[" * 100_000 + "]" * 100_000])
    chunks = chunker.chunk(PARAS, "doc", metadata={"language": "en"})
    assert chunks[0].metadata["llm_status"] == "invalid_answer: no JSON object found in the answer"


def test_the_schema_grows_linearly_with_the_chunks_shown() -> None:
    from jw_rag.chunkers.llm_answer import MAX_MERGE

    for n in (10, 100, 1000):
        counts = [1 + i % 6 for i in range(n)]
        schema = actions_schema(counts, sizes=[20] * n, size_limit=5000)
        items = schema["properties"]["actions"]["items"]["anyOf"]
        assert len(items) == 6  # one split alternative per paragraph count, one merge
        runs = items[-1]["properties"]["chunk_indices"]["enum"]
        assert len(runs) == sum(min(MAX_MERGE, n - i) - 1 for i in range(n))
        assert len(json.dumps(schema)) < 60 * n + 2000


def test_empty_input_asks_nothing() -> None:
    for empty in ([], ["", "   "], ""):
        chunker, fake = _chunker([])
        assert chunker.chunk(empty, "doc") == [] and fake.calls == 0


def test_concurrent_chunk_calls_share_one_cache(tmp_path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    docs = {f"doc-{i}": [p.replace("libraries", f"libraries {i}") for p in PARAS] for i in range(6)}
    fake = FakeProvider(
        lambda prompt: _answer({"op": "split", "chunk_index": 2, "after_paragraph": 1})
    )
    chunker = LLMChunker(provider=fake, max_chars=400, min_chars=10, cache_dir=tmp_path)
    jobs = [d for d in docs for _ in range(3)]  # each document chunked three times at once
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda d: (d, chunker.chunk(docs[d], d)), jobs))
    for doc_id, chunks in results:
        check_chunks(docs[doc_id], chunks, max_len=chunker.cap)
        assert [c.metadata["para_ids"] for c in chunks] == [[0], [1], [2], [3]]
    assert len(chunker.cache.entries()) == len(docs)
    calls = fake.calls
    again = [chunker.chunk(docs[d], d) for d in docs]
    assert fake.calls == calls and {c.metadata["llm_status"] for cs in again for c in cs} == {
        "cached"
    }


def test_lone_surrogates_in_text_or_answer_are_chunked_and_cached() -> None:
    # text decoded with errors="surrogateescape" (a stray non-UTF-8 byte), and a model
    # answer ending in half a UTF-16 pair: both chunk, cache, and come back from the cache
    paras = [PARAS[0] + " caf\udce9", *PARAS[1:]]
    chunker, fake = _chunker(
        [_answer({"op": "split", "chunk_index": 2, "after_paragraph": 1}) + "\ud800"]
    )
    first = chunker.chunk(paras, "doc", metadata={"language": "en"})
    again = chunker.chunk(paras, "doc", metadata={"language": "en"})
    assert [c.metadata["para_ids"] for c in first] == [[0], [1], [2], [3]]
    assert first[0].metadata["llm_status"] == "ok" and again[0].metadata["llm_status"] == "cached"
    assert [c.text for c in again] == [c.text for c in first] and fake.calls == 1
    assert first[0].text.endswith("caf\udce9")


def test_a_document_that_allows_no_action_asks_nothing() -> None:
    # one paragraph, or paragraphs each too long to merge with the next: the schema
    # allows only {"actions": []}, so no call is made (and none is paid for)
    for paras in (["Only one short paragraph, nothing to split or merge."], [B.strip()] * 3):
        fake = FakeProvider([])
        chunker = LLMChunker(provider=fake, max_chars=300, min_chars=10)
        chunks = chunker.chunk(paras, "one", metadata={"language": "en"})
        assert fake.calls == 0
        assert [c.metadata["llm_status"] for c in chunks] == ["no_actions"] * len(chunks)
        assert [c.metadata["span"] for c in chunks] == [
            c.metadata["span"]
            for c in chunker.semantic.chunk(paras, "one", metadata={"language": "en"})
        ]
        again = chunker.chunk(paras, "one", metadata={"language": "en"})
        assert again[0].metadata["llm_status"] == "cached" and fake.calls == 0


def test_a_failure_late_in_a_long_document_keeps_the_answers_before_it() -> None:
    # a rate limit on the third call of a long document: the document falls back,
    # but the next run asks only from the third call on (it asked every call again,
    # so a document longer than the rate limit allowed never got through)
    paras = PARAS * 6
    limited = GenError("the OpenAI API answered HTTP 429 (rate limited): retry later")
    split = {"op": "split", "chunk_index": 2, "after_paragraph": 1}
    first = FakeProvider([_answer(split), _answer(), limited])
    chunker = LLMChunker(provider=first, max_chars=400, min_chars=10, max_prompt_chars=1200)
    prompts = chunker.prompts(paras, "long", metadata={"language": "en"})
    assert len(prompts) >= 4
    chunks = chunker.chunk(paras, "long", metadata={"language": "en"})
    assert chunks[0].metadata["llm_status"] == f"provider_error: {limited}"
    assert first.calls == 3

    second = FakeProvider(lambda prompt: _answer())
    chunker.provider = second
    chunks = chunker.chunk(paras, "long", metadata={"language": "en"})
    check_chunks(paras, chunks, max_len=chunker.cap)
    assert second.prompts == prompts[2:]  # the first two answers came from the cache
    assert chunks[0].metadata["llm_status"] == "ok"
    assert [c.metadata["para_ids"] for c in chunks[:4]] == [[0], [1], [2], [3]]
    assert chunks[2].metadata["llm_actions"] == [split]  # the kept first answer applies

    again = chunker.chunk(paras, "long", metadata={"language": "en"})
    assert again[0].metadata["llm_status"] == "cached" and second.calls == len(prompts) - 2
    assert [c.text for c in again] == [c.text for c in chunks]


@pytest.mark.parametrize("options", ["abc", 5, [("template", "chatml")], {1: "x"}])
def test_provider_options_that_are_not_a_mapping_name_the_option(options: object) -> None:
    # a spec's value is text (llm:provider_options=abc): dict() said
    # "dictionary update sequence element #0 has length 1; 2 is required"
    with pytest.raises(ConfigError, match=r"^provider_options must be a mapping") as err:
        get_chunker("llm", provider="heuristic", provider_options=options)
    assert "\n" not in str(err.value)
