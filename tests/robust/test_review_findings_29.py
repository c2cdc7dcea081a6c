"""Review findings on issue 29's changes (chunker base, renamed names,
packaging, the provider base, line structure): each test fails without its fix."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from jw_gen.errors import GenerationError
from jw_gen.providers._ollama import OllamaProvider
from jw_gen.providers._openai import OpenAIProvider

# --- providers: every failure is one GenerationError line ---------------------


def _sdk_whose_client_refuses(message: str) -> types.ModuleType:
    """An ``openai`` stand-in whose client constructor raises (as a real SDK does
    for a malformed base URL) before anything is sent."""
    sdk = types.ModuleType("openai")

    class OpenAI:
        def __init__(self, **_: object) -> None:
            raise ValueError(message)

    sdk.OpenAI = OpenAI  # type: ignore[attr-defined]
    sdk.APIStatusError = type("APIStatusError", (Exception,), {})  # type: ignore[attr-defined]
    sdk.APIConnectionError = type("APIConnectionError", (Exception,), {})  # type: ignore[attr-defined]
    return sdk


def test_a_client_the_sdk_refuses_to_build_is_one_generation_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "openai", _sdk_whose_client_refuses("Invalid port\n: ':1'"))
    provider = OpenAIProvider(api_key="k", base_url="http://[::1")
    with pytest.raises(GenerationError) as err:
        provider.complete("hello")
    assert str(err.value) == (
        "cannot set up a client for http://[::1: ValueError: Invalid port : ':1': "
        "check that OPENAI_BASE_URL points at an OpenAI-compatible API"
    )


def _jw(tmp_path: Path, *argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = "import sys\nfrom jw_cli.app import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=120,
        env={**os.environ, "JW_HOME": str(tmp_path / "home"), **env},
    )  # fmt: skip


@pytest.mark.parametrize("strict", [True, False])
def test_a_malformed_ollama_host_is_one_line_through_jw(tmp_path: Path, strict: bool) -> None:
    pytest.importorskip("ollama")
    text = tmp_path / "t.txt"
    text.write_text("\n\n".join(f"Paragraph {i} holds a sentence about rivers." for i in range(6)))
    spec = f"llm:provider=ollama,strict={str(strict).lower()}"
    run = _jw(tmp_path, "rag", "chunk", str(text), "--chunker", spec,
              env={"OLLAMA_HOST": "http://[::1"})  # fmt: skip
    # strict: the error, exit 1 (as for a server that does not answer); else the chunker falls back and says why in one line
    assert run.returncode == (1 if strict else 0), run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    # the ollama package reads OLLAMA_HOST when it is imported
    assert "the 'ollama' package failed to load (ValueError: Invalid IPv6 URL)" in run.stderr
    assert run.stderr.rstrip().endswith("check that OLLAMA_HOST points at an Ollama server")


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), "30", True, None])
def test_a_bad_timeout_is_refused_when_the_provider_is_made(timeout: object) -> None:
    for make in (
        lambda: OpenAIProvider(api_key="k", timeout=timeout),  # type: ignore[arg-type]
        lambda: OllamaProvider(timeout=timeout),  # type: ignore[arg-type]
    ):
        with pytest.raises(GenerationError, match=r"^timeout must be a number of seconds above 0"):
            make()


def test_a_good_timeout_is_kept() -> None:
    assert OpenAIProvider(api_key="k", timeout=2).timeout == 2
    assert OllamaProvider(timeout=0.5).timeout == 0.5


def test_a_missing_sdk_names_the_pip_command_and_the_checkout_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ollama", None)  # import ollama -> ImportError
    with pytest.raises(GenerationError) as err:
        OllamaProvider().complete("hello")
    assert str(err.value) == (
        "the ollama provider needs the 'ollama' package: install it with "
        "`pip install 'jw-gen[ollama]'` (in a checkout: "
        "`uv sync --all-packages --extra ollama` at the repository root)"
    )
