"""Review findings on issue 29's changes (chunker base, renamed names,
packaging, the provider base, line structure): each test fails without its fix."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from jw_core import SentenceCursor
from jw_eval.bench.chunking import VariantChunker
from jw_eval.bench.variants import parse_variant
from jw_gen.errors import GenerationError
from jw_gen.providers._ollama import OllamaProvider
from jw_gen.providers._openai import OpenAIProvider
from jw_rag.chunker import chunk_paragraphs
from jw_rag.chunkers import ChunkerBase, get_chunker, parse_chunker_spec
from jw_rag.chunkers.base import check_sizes
from jw_rag.errors import ConfigError, shown_value
from jw_rag.ingest import ingest_documents, source_kind
from jw_rag.renames import RenamedWarning, renamed
from jw_rag.retrieve import expand_hits

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


# --- a hostile value keeps its error line short -------------------------------

HUGE_TEXT = "x" * 100_000
HUGE_INT = 10**5000  # too long for str(): printing it raised a ValueError of its own


@pytest.mark.parametrize(
    "call",
    [
        lambda: get_chunker("paragraph", max_chars=HUGE_TEXT),
        lambda: get_chunker("semantic", min_chars=HUGE_INT),
        lambda: chunk_paragraphs(["a b"], "s", max_chars=HUGE_INT),
        lambda: check_sizes(HUGE_TEXT, 0),
        lambda: expand_hits(None, [], reach=HUGE_INT),  # type: ignore[arg-type]
        lambda: expand_hits(None, [], reach=HUGE_TEXT),  # type: ignore[arg-type]
        lambda: renamed("retrieve()", "window", HUGE_TEXT, "reach", 1),
        lambda: renamed("retrieve()", "window", HUGE_INT, "reach", 1),
        lambda: ingest_documents(None, [], window_chars=HUGE_TEXT),  # type: ignore[arg-type]
        lambda: source_kind(HUGE_TEXT),
    ],
    ids=["option-text", "option-int", "chunk_paragraphs", "check_sizes", "reach-int",
         "reach-text", "renamed-text", "renamed-int", "window_chars", "kind"],
)  # fmt: skip
def test_a_huge_value_is_quoted_cut_in_a_one_line_config_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError) as err:
        call()
    line = str(err.value)
    assert "\n" not in line and len(line) < 260, line[:300]
    assert "..." in line or "an integer of about 5001 digits" in line


def test_shown_value_cuts_long_values_and_keeps_short_ones() -> None:
    assert shown_value("abc") == "'abc'"
    assert shown_value(1500) == "1500"
    assert shown_value(float("nan")) == "nan"
    assert shown_value("y" * 100) == "'" + "y" * 56 + "..."
    assert len(shown_value("y" * 100)) == 60
    assert shown_value(-(10**5000)) == "<an integer of about 5001 digits>"
    assert shown_value(10**50) == str(10**50)


# --- renamed names: NaN under both names is a bad value, not a disagreement -----


def test_nan_under_the_old_and_the_new_name_is_refused_as_a_bad_reach() -> None:
    with pytest.warns(RenamedWarning), pytest.raises(ConfigError) as err:
        expand_hits(None, [], window=float("nan"), reach=float("nan"))  # type: ignore[arg-type]
    assert str(err.value) == "reach must be a number of chunks each way from 0 to 50, got nan"


# --- chunker specs and bench variants -------------------------------------------


@pytest.mark.parametrize(
    "spec",
    ["paragraph:max_chars=500,max_chars=900", "semantic:overflow=0.2, overflow=0.2",
     "paragraph:reach=2,reach=3", "paragraph:window_chars=0,window_chars=10"],
)  # fmt: skip
def test_an_option_given_twice_in_a_spec_is_refused_not_overridden(spec: str) -> None:
    key = spec.split(":")[1].split("=")[0]
    with pytest.raises(ConfigError) as err:
        parse_chunker_spec(spec)
    assert str(err.value) == f"chunker spec {spec!r}: option {key!r} is given twice; give it once"
    with pytest.raises(ConfigError, match="is given twice"):
        parse_variant(spec)


def test_a_number_too_long_to_convert_is_not_read_as_infinity() -> None:
    digits = "9" * 5000
    assert parse_chunker_spec(f"paragraph:max_chars={digits}")[1]["max_chars"] == digits
    with pytest.raises(ConfigError) as err:
        get_chunker(f"paragraph:max_chars={digits}")
    assert str(err.value) == f"max_chars must be a whole number, got '{'9' * 56}..."
    # what a spec held before: whole numbers, decimals and words
    assert parse_chunker_spec("s:a=12,b=-3,c=1_000,d=0.5,e=1e3,f=x,g=true")[1] == {
        "a": 12, "b": -3, "c": 1000, "d": 0.5, "e": 1000.0, "f": "x", "g": True,
    }  # fmt: skip


@pytest.mark.parametrize("variant", ["paragraph:window=2", "semantic:reachh=1"])
def test_an_unknown_variant_option_also_names_the_variant_options(variant: str) -> None:
    with pytest.raises(ConfigError) as err:
        VariantChunker(parse_variant(variant))
    line = str(err.value)
    assert line.startswith(f"variant {variant!r}: chunker ")
    assert "has no option" in line and "\n" not in line
    assert line.endswith(
        "; a variant also takes reach (chunks each way a delivery adds), window_chars (window "
        "units' size in characters, 0: none), units=off, passage_chars, split_above, "
        "group_below, pooled, wide, prefix (the title's weight in each unit's vector, 0: "
        "embedded with its text)"
    )


# --- the paragraph chunker cuts a long sentence-less paragraph in linear time ----


def test_a_long_paragraph_without_sentence_ends_is_cut_in_linear_time() -> None:
    # a table or log row repeated: one "sentence" of many words, cut at max_chars;
    # each piece used to look for its word from the first word of the paragraph
    import gc
    import time

    row = "| " + " | ".join(f"cell{i}" for i in range(50)) + " |"
    took = []
    gc.disable()  # a collection inside one timing is noise, not the algorithm
    try:
        for rows in (500, 8000):  # ~220 kB and ~3.6 MB: 16x the text
            text = "\n".join([row] * rows)
            best = float("inf")
            for _ in range(3):  # the best of three: a loaded machine only adds time
                start = time.perf_counter()
                chunks = chunk_paragraphs([text], "t", max_chars=60, min_chars=0)
                best = min(best, time.perf_counter() - start)
            took.append(best)
            assert max(len(c.text) for c in chunks) <= 60
            assert " ".join(c.text for c in chunks).split() == text.split()
    finally:
        gc.enable()
    assert took[1] / took[0] < 80, took  # 16x when linear, ~256x when quadratic


# --- jw_core.SentenceCursor is public: bad input is one line, never a hang ------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"step": -1}, "SentenceCursor step must be a whole number of characters >= 0 "
                       "(0: the default), got -1"),
        ({"window": -5}, "SentenceCursor window must be a whole number of characters >= 0 "
                         "(0: the default), got -5"),
        ({"step": 0.5}, "SentenceCursor step must be a whole number of characters >= 0 "
                        "(0: the default), got 0.5"),
        ({"window": True}, "SentenceCursor window must be a whole number of characters >= 0 "
                           "(0: the default), got True"),
    ],
)  # fmt: skip
def test_a_sentence_cursor_refuses_bad_settings(kwargs: dict[str, object], message: str) -> None:
    # step=-1 used to loop for ever on the first position asked for
    with pytest.raises(ValueError) as err:
        SentenceCursor("One. Two here. Three. " * 200, **kwargs)  # type: ignore[arg-type]
    assert str(err.value) == message


def test_a_sentence_cursor_refuses_a_text_that_is_not_str() -> None:
    with pytest.raises(TypeError, match=r"^SentenceCursor takes a str, got bytes$"):
        SentenceCursor(b"One. Two.")  # type: ignore[arg-type]


def test_a_sentence_cursor_refuses_positions_it_cannot_answer() -> None:
    text = "One. Two here. Three. " * 200
    cursor = SentenceCursor(text)
    assert cursor.sentence_at(2000) == (1994, 1995, 2001, 2002)
    for bad in (10, 1999, len(text) + 1, 2500.0):  # back (was a bare AssertionError), past the end
        with pytest.raises(ValueError) as err:
            cursor.sentence_at(bad)  # type: ignore[arg-type]
        assert str(err.value) == (
            f"SentenceCursor.sentence_at takes a position from 2000 (the last one asked) to "
            f"{len(text)} (the text's length), got {bad!r}; make a new cursor to go back"
        )
    assert cursor.sentence_at(2000) == (1994, 1995, 2001, 2002)  # the same position again
    assert cursor.sentence_at(len(text)) == (4392, 4393, 4399, None)
    assert SentenceCursor(text).sentence_at(10) == (4, 5, 14, 15)


# --- packaging: a jw-eval installed without its data still runs -----------------

_WITHOUT_DATA = (
    "import sys\n"
    "from pathlib import Path\n"
    "import importlib.resources as resources\n"
    "real = resources.files\n"
    "# jw-eval's data is not there (set before jw_eval is imported)\n"
    "resources.files = lambda p: Path(sys.argv[1]) if p == 'jw_eval' else real(p)\n"
    "from jw_cli.app import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


def test_without_the_bundled_corpus_jw_runs_and_dataset_still_works(tmp_path: Path) -> None:
    from jw_eval.bench import DEFAULT_DATASET

    def jw(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _WITHOUT_DATA, str(tmp_path / "empty"), *argv],
            capture_output=True, text=True, timeout=300,
            env={**os.environ, "JW_HOME": str(tmp_path / "home"), "JW_EMBEDDER": "fake"},
        )  # fmt: skip

    bench = ["eval", "chunker-bench", "--limit", "2", "--peers", "none", "--variants",
             "paragraph", "--out", str(tmp_path / "r.md")]  # fmt: skip
    # importing the bench used to look the corpus up: every jw command stopped there
    assert jw("--help").returncode == 0
    given = jw(*bench, "--dataset", str(DEFAULT_DATASET))
    assert given.returncode == 0, given.stderr
    missing = jw(*bench)
    assert missing.returncode == 2
    where = tmp_path / "empty" / "data" / "chunker_bench"
    assert missing.stderr == (
        f"error: jw-eval's bundled chunker_bench is missing ({where}): reinstall jw-eval "
        "(pip install --force-reinstall jw-eval) or pass --dataset\n"
    )


# --- a size the user did not give is named with the fix ---------------------------


def test_a_max_chars_below_the_default_min_chars_says_what_to_change(tmp_path: Path) -> None:
    # the user gave only max_chars=6; min_chars is its default, 80
    text = tmp_path / "t.txt"
    text.write_text("Rivers carry silt. The delta grows.")
    run = _jw(tmp_path, "rag", "chunk", str(text), "--chunker", "paragraph:max_chars=6", env={})
    assert run.returncode == 2
    assert run.stderr == (
        "error: min_chars must be between 0 and max_chars (6), got 80: give a min_chars of at "
        "most 6 or a max_chars of at least 80\n"
    )


# --- a chunker written on ChunkerBase is told what it lacks -----------------------


@pytest.mark.parametrize("lacks", ["name", "version"])
def test_a_chunker_on_the_base_without_name_or_version_says_so(lacks: str) -> None:
    stated = {"name": "mine", "version": "1"}
    del stated[lacks]
    Mine = type("Mine", (ChunkerBase,), {**stated, "_pieces_for": lambda self, doc: []})
    with pytest.raises(ConfigError) as err:  # was AttributeError: no attribute 'name'
        Mine().chunk(["Some text."], "s")
    assert str(err.value) == (
        f"chunker Mine does not state its {lacks}: give the class a `{lacks}` string "
        "(ChunkerBase needs name, version and _pieces_for)"
    )
