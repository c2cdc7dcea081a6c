"""Every remote provider sends the LLM chunker's answer schema in its API's own
way, read back from the request bodies a loopback server recorded."""

from __future__ import annotations

import json

import pytest

from jw_gen.providers import AnthropicProvider, FakeProvider, OllamaProvider, OpenAIProvider
from jw_rag.chunkers.llm_answer import SCHEMA_NAME, actions_schema
from jw_rag.chunkers.llm_chunker import LLMChunker

# Three short paragraphs that the semantic chunker keeps apart (max_chars=150).
PARAS = [
    "The first section opens with a claim about ancient libraries and their readers.",
    "A new subject starts here about river boats and their cargo routes upstream.",
    "Another subject again: the weather in the mountains during the dry season.",
]


def _chunker(provider) -> LLMChunker:
    return LLMChunker(provider=provider, max_chars=150, min_chars=10, cache=False)


def _expected_schema() -> dict:
    fake = FakeProvider(['{"actions": []}'])
    _chunker(fake).chunk(PARAS, "doc", metadata={"language": "en"})
    (schema,) = fake.schemas
    return schema


def test_the_chunker_hands_over_the_schema_of_its_window() -> None:
    schema = _expected_schema()
    assert schema == actions_schema([1, 1, 1], sizes=[len(p) for p in PARAS], size_limit=195)
    merges = schema["properties"]["actions"]["items"]["properties"]["chunk_indices"]["enum"]
    assert merges == [[0, 1], [1, 2]]  # no split: every chunk has one paragraph


@pytest.mark.parametrize(
    ("make", "fixture"),
    [
        (lambda url: OllamaProvider(host=url), "ollama_chat"),
        (lambda url: OpenAIProvider(api_key="k", base_url=url + "/v1"), "openai_chat_completions"),
        (lambda url: AnthropicProvider(api_key="k", base_url=url), "anthropic_tool_use"),
    ],
)
def test_each_provider_sends_the_schema(replay, make, fixture) -> None:
    replay.serve(fixture)
    chunks = _chunker(make(replay.url)).chunk(PARAS, "doc", metadata={"language": "en"})
    assert chunks[0].metadata["llm_status"] in ("ok", "no_actions")
    body = replay.requests[0]["json"]
    schema = _expected_schema()
    if fixture == "ollama_chat":
        assert body["format"] == schema
    elif fixture == "openai_chat_completions":
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": True},
        }
    else:
        (tool,) = body["tools"]
        assert tool["name"] == SCHEMA_NAME and tool["input_schema"] == schema
        assert body["tool_choice"] == {"type": "tool", "name": SCHEMA_NAME}


def test_anthropic_answer_is_the_tool_input_as_json(replay) -> None:
    data = replay.serve("anthropic_tool_use")
    provider = AnthropicProvider(api_key="k", base_url=replay.url)
    answer = provider.complete("p", schema=_expected_schema())
    assert json.loads(answer) == data["ok"]["content"][0]["input"]
    chunks = _chunker(provider).chunk(PARAS, "doc", metadata={"language": "en"})
    assert [c.metadata["para_ids"] for c in chunks] == [[0], [1, 2]]
    assert chunks[1].metadata["llm_actions"] == [{"op": "merge", "chunk_indices": [1, 2]}]


def test_a_provider_without_a_schema_keyword_is_asked_without_it() -> None:
    class Plain:
        provider_id, model = "plain", "m"

        def complete(self, prompt, *, system=None, temperature=0.0, seed=0):
            return '{"actions": []}'

    chunks = _chunker(Plain()).chunk(PARAS, "doc", metadata={"language": "en"})
    assert chunks[0].metadata["llm_status"] == "no_actions"
