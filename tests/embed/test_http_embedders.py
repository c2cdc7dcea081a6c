"""Ollama and OpenAI-compatible embedders against a loopback server replaying recorded answers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from jw_rag.embed import OllamaEmbedder, OpenAIEmbedder, get_embedder
from jw_rag.embed.ollama import ollama_host
from jw_rag.errors import ConfigError, EmbeddingError

TEXTS = [
    "In the beginning God created the heavens and the earth.",
    "En el principio Dios creó los cielos y la tierra.",
    "No princípio Deus criou os céus e a terra.",
]


def _recorded(name: str, index: int) -> np.ndarray:
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "fixtures" / "embed" / name
    body = json.loads(path.read_text("utf-8"))["exchanges"][index]["response"]["body"]
    if "embeddings" in body:
        raw = np.array(body["embeddings"], dtype=np.float32)
    else:
        rows = sorted(body["data"], key=lambda r: r["index"])
        raw = np.array([r["embedding"] for r in rows], dtype=np.float32)
    return raw / np.linalg.norm(raw, axis=1, keepdims=True)


# -- Ollama ---------------------------------------------------------------------------


def test_ollama_returns_renormalised_recorded_vectors(replay):
    replay.load("ollama_api_embed.json")
    emb = OllamaEmbedder("tiny-embed", host=replay.url, dim=8)
    vecs = emb.embed(TEXTS)
    assert vecs.dtype == np.float32 and vecs.shape == (3, 8)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(vecs, _recorded("ollama_api_embed.json", 0), rtol=1e-6)
    assert replay.received[0]["body"] == {"model": "tiny-embed", "input": TEXTS}
    assert emb.model_id == "ollama:tiny-embed"


def test_ollama_unknown_dim_is_probed_once(replay):
    replay.load("ollama_api_embed.json")
    emb = OllamaEmbedder("tiny-embed", host=replay.url)
    assert replay.received == []  # construction sends nothing
    assert emb.dim == 8
    assert emb.embed([]).shape == (0, 8)
    assert len(replay.received) == 1


def test_ollama_batches_requests(replay):
    replay.load("ollama_api_embed.json")
    replay.script = [
        (200, json.dumps({"embeddings": [[1.0, 0.0]] * 2}).encode()),
        (200, json.dumps({"embeddings": [[0.0, 2.0]]}).encode()),
    ]
    emb = OllamaEmbedder("tiny-embed", host=replay.url, batch_size=2, dim=2)
    vecs = emb.embed(["a", "b", "c"])
    assert [r["body"]["input"] for r in replay.received] == [["a", "b"], ["c"]]
    np.testing.assert_array_equal(vecs, [[1, 0], [1, 0], [0, 1]])


def test_ollama_missing_model_says_pull(replay):
    replay.load("ollama_api_embed.json")
    emb = OllamaEmbedder("missing-model", host=replay.url, dim=8)
    with pytest.raises(EmbeddingError, match=r"HTTP 404.*ollama pull missing-model"):
        emb.embed(["hello"])


def test_ollama_retries_5xx_then_succeeds(replay):
    ok = json.dumps({"embeddings": [[3.0, 4.0]]}).encode()
    replay.script = [(503, b"busy"), (500, b"oops"), (200, ok)]
    emb = OllamaEmbedder("m", host=replay.url, dim=2, backoff=0)
    np.testing.assert_allclose(emb.embed(["x"]), [[0.6, 0.8]], rtol=1e-6)
    assert len(replay.received) == 3


def test_ollama_gives_up_after_two_retries(replay):
    replay.script = [(502, b"bad gateway")] * 4
    emb = OllamaEmbedder("m", host=replay.url, dim=2, backoff=0)
    with pytest.raises(EmbeddingError, match="HTTP 502"):
        emb.embed(["x"])
    assert len(replay.received) == 3


def test_ollama_unreachable_names_url_and_fix(closed_port_url):
    emb = OllamaEmbedder("nomic-embed-text", host=closed_port_url, backoff=0)
    with pytest.raises(EmbeddingError) as info:
        emb.embed(["x"])
    message = str(info.value)
    assert f"{closed_port_url}/api/embed" in message
    assert "after 3 attempts" in message and "ollama serve" in message and "OLLAMA_HOST" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        (b"<html>not json</html>", "not JSON"),
        (b'{"embedding": [1, 2]}', "without an 'embeddings' list"),
        (b'{"embeddings": [[1, 2]]}', r"shape \(1, 2\) for 2 texts"),
        (b'{"embeddings": [[1, 2], [1, 2, 3]]}', "not numbers"),
        (b'{"embeddings": [[1, 2], [NaN, 1]]}', "NaN"),
        (b'{"embeddings": [[1, 2], [0, 0]]}', "all-zero"),
        (b'{"embeddings": [[1, 2, 3], [1, 2, 3]]}', "3-dimensional vectors, expected 2"),
        (b'{"embeddings": [["a", "b"], [1, 2]]}', "not numbers"),
    ],
)
def test_ollama_garbage_answers_are_one_line_errors(replay, raw, match):
    replay.script = [(200, raw)]
    emb = OllamaEmbedder("m", host=replay.url, dim=2)
    with pytest.raises(EmbeddingError, match=match) as info:
        emb.embed(["a", "b"])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (None, "http://127.0.0.1:11434"),
        ("localhost:8080", "http://localhost:8080"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:9999", "http://127.0.0.1:9999"),
        ("https://ollama.example.org/", "https://ollama.example.org"),
        ("[::1]:8000", "http://[::1]:8000"),
        ("http://10.0.0.5:11434", "http://10.0.0.5:11434"),
    ],
)
def test_ollama_host_from_environment(monkeypatch, env, expected):
    if env is not None:
        monkeypatch.setenv("OLLAMA_HOST", env)
    assert ollama_host() == expected


def test_get_embedder_ollama_uses_env_host_and_default_model(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:1234")
    emb = get_embedder("ollama", cache=False)
    assert isinstance(emb, OllamaEmbedder)
    assert (emb.model, emb.host, emb.dim) == ("nomic-embed-text", "http://127.0.0.1:1234", 768)
    assert get_embedder("ollama:bge-m3:latest", cache=False).model_id == "ollama:bge-m3"


# -- OpenAI-compatible ------------------------------------------------------------------


def test_openai_sorts_by_index_and_sends_key(replay):
    replay.load("openai_embeddings.json")
    emb = OpenAIEmbedder(base_url=f"{replay.url}/v1", api_key="sk-test", dimensions=6)
    assert (emb.dim, emb.model_id) == (6, "openai:text-embedding-3-small:6d")
    vecs = emb.embed(TEXTS)
    np.testing.assert_allclose(vecs, _recorded("openai_embeddings.json", 0), rtol=1e-6)
    assert replay.received[0]["authorization"] == "Bearer sk-test"


def test_openai_reads_base_url_and_key_from_env(replay, monkeypatch):
    replay.load("openai_embeddings.json")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{replay.url}/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    emb = get_embedder("openai:text-embedding-3-small", cache=False, dimensions=6)
    assert emb.embed(TEXTS).shape == (3, 6)
    assert replay.received[0]["authorization"] == "Bearer sk-env"


def test_openai_default_url_and_dims(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    emb = get_embedder("openai", cache=False)
    assert (emb.base_url, emb.dim) == ("https://api.openai.com/v1", 1536)


def test_openai_missing_key_names_the_variable():
    with pytest.raises(ConfigError, match="set OPENAI_API_KEY") as info:
        get_embedder("openai:text-embedding-3-small", cache=False)
    assert "\n" not in str(info.value)


def test_openai_wrong_key_says_check_key(replay):
    replay.load("openai_embeddings.json")
    emb = OpenAIEmbedder(base_url=f"{replay.url}/v1", api_key="wrong-key", dimensions=6)
    with pytest.raises(EmbeddingError, match=r"HTTP 401.*Incorrect API key.*check OPENAI_API_KEY"):
        emb.embed(["hello"])


def test_openai_unreachable(closed_port_url):
    emb = OpenAIEmbedder(base_url=closed_port_url, api_key="k", backoff=0)
    with pytest.raises(EmbeddingError, match=rf"{closed_port_url}/embeddings is unreachable"):
        emb.embed(["x"])


@pytest.mark.parametrize(
    "raw",
    [
        b'{"object": "list"}',
        b'{"data": [{"embedding": [1, 2]}]}',
        b'{"data": "nope"}',
        b"[1, 2]",
    ],
)
def test_openai_garbage_answers(replay, raw):
    replay.script = [(200, raw)]
    emb = OpenAIEmbedder("m", base_url=replay.url, api_key="k", dim=2)
    with pytest.raises(EmbeddingError, match="without a 'data' list"):
        emb.embed(["a"])
