"""``jw_gen.providers.defaults`` is the one table of default provider and model
names: every provider class, ``resolve``, the CLI's report and the README say
what it says."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_gen.providers import (
    AnthropicProvider,
    FakeProvider,
    HeuristicProvider,
    LlamaCppProvider,
    OllamaProvider,
    OpenAIProvider,
    provider_names,
    resolve,
)
from jw_gen.providers.defaults import DEFAULT_MODELS, DEFAULT_PROVIDER

README = Path(__file__).resolve().parents[2] / "README.md"

CLASSES = {
    "anthropic": AnthropicProvider,
    "openai": OpenAIProvider,
    "ollama": OllamaProvider,
    "llamacpp": LlamaCppProvider,
    "heuristic": HeuristicProvider,
}


def test_every_provider_name_has_one_default_model() -> None:
    assert set(DEFAULT_MODELS) == set(provider_names())
    assert DEFAULT_PROVIDER in DEFAULT_MODELS
    with pytest.raises(TypeError):
        DEFAULT_MODELS["ollama"] = "changed"  # type: ignore[index]


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_and_resolve_take_the_table_model(name: str) -> None:
    cls = CLASSES[name]
    assert cls.provider_id == name
    assert cls().model == DEFAULT_MODELS[name]
    assert resolve(name).model == DEFAULT_MODELS[name]
    assert cls("chosen").model == "chosen"


def test_the_fake_takes_the_table_model() -> None:
    assert FakeProvider(["x"]).model == DEFAULT_MODELS["fake"]
    assert resolve("fake", answers=["x"]).model == DEFAULT_MODELS["fake"]


def test_resolve_without_a_name_is_the_default_provider() -> None:
    provider = resolve()
    assert (provider.provider_id, provider.model) == (
        DEFAULT_PROVIDER,
        DEFAULT_MODELS[DEFAULT_PROVIDER],
    )


def _readme_paragraph(marker: str) -> str:
    text = README.read_text(encoding="utf-8")
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    (paragraph,) = [p for p in paragraphs if marker in p]
    return paragraph


def test_the_readme_lists_the_table() -> None:
    sentence = _readme_paragraph("each provider's default model is:")
    listed = sentence.split("each provider's default model is:", 1)[1].split(" (rules", 1)[0]
    pairs = dict(re.findall(r"`([\w-]+)` `([^`]+)`", listed))
    assert pairs == {k: v for k, v in DEFAULT_MODELS.items() if k != "fake"}
    assert f"`JW_GEN_PROVIDER`, else `{DEFAULT_PROVIDER}`" in sentence


def test_the_readme_environment_table_shows_the_defaults() -> None:
    (row,) = [
        line
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `JW_GEN_PROVIDER`")
    ]
    default = row.rstrip(" |").rsplit("|", 1)[1].strip()
    assert default == f"`{DEFAULT_PROVIDER}`, `{DEFAULT_MODELS[DEFAULT_PROVIDER]}`"


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("provider", [None, "ollama", "anthropic", "openai", "heuristic"])
def test_the_cli_reports_the_table_model(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    provider: str | None,
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setenv("OLLAMA_HOST", _closed_port())  # no model is asked: the chunker falls back
    note = tmp_path / "note.txt"
    note.write_text("A note about gardens.\n\nAnother about water.\n", encoding="utf-8")
    spec = "llm:cache=false" + (f",provider={provider}" if provider else "")
    code = main(["rag", "chunk", str(note), "--chunker", spec, "--json"])
    out, _err = capsys.readouterr()
    assert code == 0
    (document,) = json.loads(out)
    expected = provider or DEFAULT_PROVIDER
    for chunk in document["chunks"]:
        meta = chunk["metadata"]
        assert (meta["llm_provider"], meta["llm_model"]) == (expected, DEFAULT_MODELS[expected])
