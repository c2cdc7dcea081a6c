"""jw-gen is jw-rag's `llm` extra: without it the LLM chunker stops in one line
naming the extra; with it there is one GenerationError, whatever name it is
imported by."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.metadata
import sys
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_eval.bench import DEFAULT_DATASET
from jw_gen.errors import GenerationError, UnknownProviderError
from jw_gen.providers.fake import FakeProvider
from jw_rag.chunkers import get_chunker
from jw_rag.errors import ConfigError, MissingDependencyError, error_line

ARTICLE = DEFAULT_DATASET / "corpus" / "en" / "soul.html"
FIX = "pip install 'jw-rag[llm]'"


class _NotInstalled(importlib.abc.MetaPathFinder):
    """An import hook that finds no ``jw_gen``, as on a machine without it."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "jw_gen" or name.startswith("jw_gen."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _forget_jw_gen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop jw_gen and the LLM chunker from the imported modules (put back after the test)."""
    for name in [n for n in sys.modules if n == "jw_gen" or n.startswith("jw_gen.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delitem(sys.modules, "jw_rag.chunkers.llm_chunker", raising=False)


@pytest.fixture
def without_jw_gen(monkeypatch: pytest.MonkeyPatch) -> None:
    """jw-gen as if it were not installed, and the LLM chunker not yet imported."""
    _forget_jw_gen(monkeypatch)
    monkeypatch.setattr(sys, "meta_path", [_NotInstalled(), *sys.meta_path])


def _one_line_naming_the_extra(exc: BaseException) -> None:
    message = str(exc)
    assert "\n" not in message
    assert FIX in message, message
    assert "'jw-gen'" in message


@pytest.mark.usefixtures("without_jw_gen")
def test_importing_the_llm_chunker_without_jw_gen_names_the_extra() -> None:
    with pytest.raises(MissingDependencyError) as info:
        importlib.import_module("jw_rag.chunkers.llm_chunker")
    _one_line_naming_the_extra(info.value)
    assert info.value.extra == "llm"
    assert str(info.value).startswith("the LLM chunker needs the 'jw-gen' package")


@pytest.mark.usefixtures("without_jw_gen")
def test_get_chunker_llm_without_jw_gen_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        get_chunker("llm", provider="heuristic")
    _one_line_naming_the_extra(info.value)
    assert get_chunker("paragraph").name == "paragraph"  # the rest of jw-rag works


@pytest.mark.usefixtures("without_jw_gen")
def test_the_cli_says_it_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rag", "chunk", str(ARTICLE), "--chunker", "llm"])
    out, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and FIX in lines[0], err


@pytest.mark.usefixtures("without_jw_gen")
def test_generation_error_by_jw_rags_name_needs_the_extra() -> None:
    with pytest.raises(MissingDependencyError) as info:
        from jw_rag.errors import GenerationError  # noqa: F401
    _one_line_naming_the_extra(info.value)
    import jw_rag.errors

    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        jw_rag.errors.Nope  # noqa: B018


def test_a_broken_dependency_of_jw_gen_is_not_reported_as_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only jw-gen itself missing means the extra; a module missing inside an
    installed jw-gen is reported as what it is."""
    _forget_jw_gen(monkeypatch)
    monkeypatch.setitem(sys.modules, "jw_gen.providers.heuristic", None)
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module("jw_rag.chunkers.llm_chunker")
    assert not isinstance(info.value, MissingDependencyError)
    assert info.value.name == "jw_gen.providers.heuristic"


def test_there_is_one_generation_error() -> None:
    import jw_rag.errors

    assert jw_rag.errors.GenerationError is GenerationError
    from jw_rag.chunkers import llm_chunker

    assert llm_chunker.GenerationError is GenerationError
    assert issubclass(UnknownProviderError, jw_rag.errors.GenerationError)


def test_a_strict_llm_chunker_raises_it_under_both_names() -> None:
    import jw_rag.errors

    boom = GenerationError("the model server answered HTTP 500: retry later", provider="fake")
    chunker = get_chunker("llm", provider=FakeProvider([boom] * 4), strict=True, cache=False)
    text = "\n\n".join(
        f"Paragraph {i} says something about the subject at some length. " * 4 for i in range(6)
    )
    for caught in (GenerationError, jw_rag.errors.GenerationError):
        with pytest.raises(caught, match="HTTP 500: retry later"):
            chunker.chunk(text, "t")


def test_error_line_keeps_a_generation_errors_message() -> None:
    exc = GenerationError("OPENAI_API_KEY is not set: export it", provider="openai")
    assert error_line(exc) == "OPENAI_API_KEY is not set: export it"
    assert error_line(RuntimeError("x")).startswith("unexpected RuntimeError: x")


def test_jw_rag_declares_jw_gen_as_its_llm_extra() -> None:
    requires = importlib.metadata.requires("jw-rag") or []
    normal = [r.replace(" ", "").replace("'", '"') for r in requires]
    assert 'jw-gen;extra=="llm"' in normal, requires
    assert "llm" in (importlib.metadata.metadata("jw-rag").get_all("Provides-Extra") or [])
    for dist in ("jw-cli", "jw-mcp"):  # the commands ship with the LLM chunker working
        assert any(r.startswith("jw-rag[llm]") for r in importlib.metadata.requires(dist) or [])


def test_only_the_llm_chunker_and_the_error_alias_import_jw_gen() -> None:
    src = Path(importlib.import_module("jw_rag").__file__).parent
    users = sorted(
        str(p.relative_to(src)) for p in src.rglob("*.py") if "jw_gen" in p.read_text("utf-8")
        and ("from jw_gen" in p.read_text("utf-8") or "import jw_gen" in p.read_text("utf-8"))
    )  # fmt: skip
    assert users == ["chunkers/llm_chunker.py", "errors.py"]
