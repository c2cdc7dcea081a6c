"""Each provider's real SDK client against a loopback server replaying
recorded answers in the real API response shapes."""

from __future__ import annotations

import sys

import pytest

from jw_gen.errors import GenerationError
from jw_gen.providers import AnthropicProvider, OllamaProvider, OpenAIProvider, resolve

SYSTEM = "Answer with JSON."


def test_ollama_chat_request_and_answer(replay) -> None:
    data = replay.serve("ollama_chat")
    provider = OllamaProvider(host=replay.url)
    answer = provider.complete("the prompt", system=SYSTEM, temperature=0.0, seed=0)
    assert answer == data["ok"]["message"]["content"]
    (req,) = replay.requests
    assert req["path"] == "/api/chat"
    body = req["json"]
    assert body["model"] == "llama3.1:8b"
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "the prompt"},
    ]
    assert body["options"] == {"temperature": 0.0, "seed": 0}
    assert body["stream"] is False
    assert "format" not in body  # free text unless a schema is given


def test_ollama_host_from_environment(replay, monkeypatch) -> None:
    replay.serve("ollama_chat")
    monkeypatch.setenv("OLLAMA_HOST", replay.url)
    provider = resolve("ollama", model="qwen2.5:3b")
    assert provider.complete("p").startswith('{"actions"')
    assert replay.requests[0]["json"]["model"] == "qwen2.5:3b"


def test_anthropic_messages_request_and_answer(replay) -> None:
    data = replay.serve("anthropic_messages")
    provider = AnthropicProvider(api_key="test-key", base_url=replay.url)
    answer = provider.complete("the prompt", system=SYSTEM, seed=0)
    assert answer == data["ok"]["content"][0]["text"]
    (req,) = replay.requests
    assert req["path"] == "/v1/messages"
    key_headers = (req["headers"].get("x-api-key"), req["headers"].get("authorization"))
    assert "test-key" in key_headers or "Bearer test-key" in key_headers
    body = req["json"]
    assert body["model"] == "claude-3-5-haiku-latest"
    assert body["system"] == SYSTEM
    assert body["messages"] == [{"role": "user", "content": "the prompt"}]
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 1024
    assert "seed" not in body  # the Messages API has none
    assert "tools" not in body and "tool_choice" not in body


def test_openai_chat_completions_request_and_answer(replay, monkeypatch) -> None:
    data = replay.serve("openai_chat_completions")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", replay.url + "/v1")
    provider = resolve("openai")
    answer = provider.complete("the prompt", system=SYSTEM, seed=7)
    assert answer == data["ok"]["choices"][0]["message"]["content"]
    (req,) = replay.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == "Bearer sk-test"
    body = req["json"]
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"][0] == {"role": "system", "content": SYSTEM}
    assert body["temperature"] == 0.0
    assert body["seed"] == 7
    assert "response_format" not in body


@pytest.mark.parametrize(
    ("make", "fixture", "expected"),
    [
        (lambda url: OllamaProvider(host=url), "ollama_chat", r"Ollama at .* HTTP 500 .*killed"),
        (
            lambda url: AnthropicProvider(api_key="k", base_url=url),
            "anthropic_messages",
            r"HTTP 500 .*Internal server error",
        ),
        (
            lambda url: OpenAIProvider(api_key="k", base_url=url + "/v1"),
            "openai_chat_completions",
            r"HTTP 500 .*server had an error",
        ),
    ],
)
def test_http_500_is_one_line_generation_error(replay, make, fixture, expected) -> None:
    replay.serve(fixture, status=500)
    with pytest.raises(GenerationError, match=expected) as info:
        make(replay.url).complete("p")
    assert "\n" not in str(info.value)
    assert len(replay.requests) == 1  # no hidden retries


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (
            lambda url: OllamaProvider(host=url),
            r"cannot reach Ollama .*`ollama serve`.*OLLAMA_HOST",
        ),
        (lambda url: AnthropicProvider(api_key="k", base_url=url), r"cannot reach http"),
        (lambda url: OpenAIProvider(api_key="k", base_url=url), r"cannot reach .*OPENAI_BASE_URL"),
    ],
)
def test_server_down_is_one_line_generation_error(closed_port_url, make, expected) -> None:
    with pytest.raises(GenerationError, match=expected) as info:
        make(closed_port_url).complete("p")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("name", "var"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")]
)
def test_missing_key_names_the_variable(name, var) -> None:
    provider = resolve(name)  # building it needs no key
    with pytest.raises(GenerationError, match=f"^{var} is not set: export it"):
        provider.complete("p")


@pytest.mark.parametrize(("name", "module"), [("ollama", "ollama"), ("openai", "openai")])
def test_missing_sdk_names_the_extra(monkeypatch, name, module) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import now fails
    provider = resolve(name, api_key="k") if name != "ollama" else resolve(name)
    with pytest.raises(GenerationError, match=rf"`uv sync --all-packages --extra {module}` at"):
        provider.complete("p")


@pytest.mark.parametrize(
    ("make", "fixture"),
    [
        (lambda url: OllamaProvider(host=url), "ollama_chat"),
        (lambda url: AnthropicProvider(api_key="k", base_url=url), "anthropic_messages"),
        (lambda url: OpenAIProvider(api_key="k", base_url=url + "/v1"), "openai_chat_completions"),
    ],
)
@pytest.mark.parametrize(
    "raw",
    [
        ("text/html", b"<html><body>proxy login</body></html>"),
        ("application/json", b"{not json"),
        ("application/json", b"{}"),
        ("application/json", b'{"content": null, "choices": null, "message": null}'),
    ],
    ids=["html", "bad-json", "empty-object", "nulls"],
)
def test_a_200_that_is_not_the_api_is_one_line_generation_error(replay, make, fixture, raw) -> None:
    replay.serve(fixture)
    replay.raw = raw
    with pytest.raises(GenerationError) as info:
        make(replay.url).complete("p", schema={"title": "t", "type": "object"})
    assert "\n" not in str(info.value)
    assert str(replay.url) in str(info.value)
