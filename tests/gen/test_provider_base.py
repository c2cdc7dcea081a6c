"""The lifecycle the SDK-backed providers share (``jw_gen.providers._base``):
the same missing-key error, the same mapping of an HTTP status answered by a
real loopback server, the client built once, the token limit checked."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_gen.errors import GenerationError
from jw_gen.providers import AnthropicProvider, OllamaProvider, OpenAIProvider, resolve
from jw_gen.providers._base import KeyedProvider, server_words
from jw_gen.providers._sdk import one_line

KEYED: list[tuple[type[KeyedProvider], str]] = [
    (AnthropicProvider, "ANTHROPIC"),
    (OpenAIProvider, "OPENAI"),
]
IDS = ["anthropic", "openai"]


def _answering(status: int, body: bytes, seen: list[dict] | None = None) -> type:
    """A handler answering every POST with ``status`` and ``body``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if seen is not None:
                seen.append(json.loads(raw or b"{}"))
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def _error_body(message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": "x", "message": message}}).encode()


def _base_url(cls: type[KeyedProvider], url: str) -> str:
    return url + "/v1" if cls is OpenAIProvider else url  # each SDK's path layout


# --- a missing key -----------------------------------------------------------


@pytest.mark.parametrize(("cls", "prefix"), KEYED, ids=IDS)
@pytest.mark.parametrize("key", [None, ""], ids=["unset", "empty"])
def test_a_missing_key_is_the_same_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, cls: type[KeyedProvider], prefix: str, key: str | None
) -> None:
    if key is not None:
        monkeypatch.setenv(f"{prefix}_API_KEY", key)
    provider = cls(base_url="http://127.0.0.1:9")  # nothing is sent: the key is checked first
    with pytest.raises(GenerationError) as info:
        provider.complete("p")
    assert str(info.value) == (
        f"{prefix}_API_KEY is not set: export it or pass api_key= to the provider"
    )
    assert info.value.provider == provider.provider_id


@pytest.mark.parametrize(("cls", "prefix"), KEYED, ids=IDS)
def test_the_key_from_the_environment_is_used(
    http_pages: Callable[[type], str],
    monkeypatch: pytest.MonkeyPatch,
    cls: type[KeyedProvider],
    prefix: str,
) -> None:
    url = http_pages(_answering(401, _error_body("bad key")))
    monkeypatch.setenv(f"{prefix}_API_KEY", "from-env")
    monkeypatch.setenv(f"{prefix}_BASE_URL", _base_url(cls, url))
    with pytest.raises(GenerationError, match=rf"HTTP 401 \(bad key\): check {prefix}_API_KEY$"):
        resolve(cls.provider_id).complete("p")


# --- a status answered by a real server --------------------------------------


@pytest.mark.parametrize(("cls", "prefix"), KEYED, ids=IDS)
@pytest.mark.parametrize(
    ("status", "fix"),
    [
        (400, "retry later or check the model name"),
        (401, "check {prefix}_API_KEY"),
        (403, "check {prefix}_API_KEY"),
        (404, "retry later or check the model name"),
        (429, "retry later or check the model name"),
        (500, "retry later or check the model name"),
        (503, "retry later or check the model name"),
    ],
)
def test_a_status_maps_to_the_same_message_for_each_hosted_api(
    http_pages: Callable[[type], str],
    cls: type[KeyedProvider],
    prefix: str,
    status: int,
    fix: str,
) -> None:
    seen: list[dict] = []
    url = _base_url(cls, http_pages(_answering(status, _error_body("the words"), seen)))
    with pytest.raises(GenerationError) as info:
        cls(api_key="k", base_url=url).complete("p")
    assert str(info.value) == (
        f"{url} answered HTTP {status} (the words): {fix.format(prefix=prefix)}"
    )
    assert len(seen) == 1  # asked once: no hidden retries


def test_ollama_status_goes_through_the_same_mapping(http_pages: Callable[[type], str]) -> None:
    url = http_pages(_answering(404, json.dumps({"error": "model 'm' not found"}).encode()))
    with pytest.raises(GenerationError) as info:
        OllamaProvider("m", host=url).complete("p")
    assert str(info.value) == (
        f"Ollama at {url} answered HTTP 404 (model 'm' not found): "
        "pull the model with `ollama pull m`"
    )


@pytest.mark.parametrize(("cls", "prefix"), KEYED, ids=IDS)
def test_hostile_error_words_stay_one_short_line(
    http_pages: Callable[[type], str], cls: type[KeyedProvider], prefix: str
) -> None:
    words = "line one\nline two\r\n\t" + "x" * 100_000
    url = _base_url(cls, http_pages(_answering(502, _error_body(words))))
    with pytest.raises(GenerationError) as info:
        cls(api_key="k", base_url=url).complete("p")
    message = str(info.value)
    assert "\n" not in message and "\r" not in message
    assert f"({one_line(words)}): retry later" in message
    assert len(message) < 400


@pytest.mark.parametrize(("cls", "prefix"), KEYED, ids=IDS)
def test_an_error_page_that_is_not_json_still_names_the_status(
    http_pages: Callable[[type], str], cls: type[KeyedProvider], prefix: str
) -> None:
    url = _base_url(cls, http_pages(_answering(502, b"<html><h1>Bad gateway</h1></html>")))
    with pytest.raises(GenerationError, match=r"answered HTTP 502 \(.*Bad gateway.*\): retry"):
        cls(api_key="k", base_url=url).complete("p")


@given(
    body=st.recursive(
        st.none() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["error", "message", "type"]), inner, max_size=3)
        ),
        max_leaves=8,
    ),
    fallback=st.text(max_size=20),
)
@settings(max_examples=200, deadline=None)
def test_server_words_is_always_text(body: object, fallback: str) -> None:
    words = server_words(body, fallback)

    def texts(value: object) -> list[object]:
        if isinstance(value, dict):
            return [t for v in value.values() for t in texts(v)]
        if isinstance(value, list):
            return [t for v in value for t in texts(v)]
        return [value]

    assert isinstance(words, str)
    assert words == fallback or words in texts(body)
    if not isinstance(body, dict):
        assert words == (body if isinstance(body, str) and body.strip() else fallback)


# --- the client and the token limit ------------------------------------------


def test_concurrent_first_calls_build_one_client(http_pages: Callable[[type], str]) -> None:
    body = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "ok"},
                }
            ],
        }
    ).encode()
    seen: list[dict] = []
    provider = OpenAIProvider(api_key="k", base_url=http_pages(_answering(200, body, seen)) + "/v1")
    answers: list[str] = []
    clients: set[int] = set()
    start = threading.Barrier(8)

    def ask() -> None:
        start.wait()
        clients.add(id(provider._get_client()))
        answers.append(provider.complete("p"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert answers == ["ok"] * 8
    assert len(clients) == 1 and len(seen) == 8


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "512"])
@pytest.mark.parametrize(("cls", "prefix"), KEYED, ids=IDS)
def test_a_bad_token_limit_is_one_line(cls: type[KeyedProvider], prefix: str, bad: object) -> None:
    with pytest.raises(GenerationError) as info:
        cls(max_tokens=bad)  # type: ignore[arg-type]
    assert str(info.value) == (
        f"max_tokens must be a whole number of at least 1 (got {bad!r}): "
        "pass a positive token count, or none for the default"
    )


@pytest.mark.parametrize(
    ("cls", "given", "sent"),
    [
        (AnthropicProvider, None, 1024),  # the Messages API requires a limit
        (AnthropicProvider, 64, 64),
        (OpenAIProvider, None, None),  # none sent unless asked
        (OpenAIProvider, 64, 64),
    ],
)
def test_the_token_limit_sent(
    http_pages: Callable[[type], str], cls: type[KeyedProvider], given: int | None, sent: int | None
) -> None:
    seen: list[dict] = []
    url = _base_url(cls, http_pages(_answering(500, _error_body("stop"), seen)))
    with pytest.raises(GenerationError):
        cls(api_key="k", base_url=url, max_tokens=given).complete("p")
    assert seen[0].get("max_tokens") == sent


@pytest.mark.parametrize("cls", [OpenAIProvider, AnthropicProvider])
@pytest.mark.parametrize("key", ["", "   ", 123, b"sk-bytes"])
def test_an_empty_or_non_text_api_key_is_refused_not_replaced_by_the_environment(
    cls: type[KeyedProvider], key: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # api_key="" used to fall back to $..._API_KEY without a word
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env")
    with pytest.raises(GenerationError) as caught:
        cls(api_key=key)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message and "api_key is" in message and "_API_KEY" in message
