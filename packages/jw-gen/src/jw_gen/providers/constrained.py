"""Constrained decoding: at each step only the tokens whose text keeps the
answer a prefix of a valid value of the schema (:mod:`json_machine`) can be
picked, whatever the model's logits prefer.

The vocabulary's tokens made only of characters the schema can write are put
in a trie once per alphabet; each step walks the trie and the machine together,
so the work grows with the tokens that fit, not with the vocabulary. A token is
allowed only if the answer can still be completed within the tokens left
(:meth:`~json_machine.Machine.min_chars`, counting one token per character, so
every character the schema writes must exist as a one-character token).
End-of-generation tokens are allowed once the text is a whole value, and the
answer stops by itself when nothing can follow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from jw_gen.errors import GenerationError
from jw_gen.providers.json_machine import Machine, State

__all__ = ["Vocabulary", "allowed_tokens", "constrained_answer"]


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=list)


class Vocabulary:
    """A model's token pieces (``pieces[i]`` is token ``i``'s bytes) and its
    end-of-generation tokens, indexed for constrained decoding."""

    def __init__(self, pieces: Sequence[bytes], end_ids: Iterable[int]) -> None:
        self.pieces = list(pieces)
        self.end_ids = frozenset(end_ids)
        self._tries: dict[frozenset[str], _Node] = {}

    def __len__(self) -> int:
        return len(self.pieces)

    def text(self, token: int) -> str:
        return self.pieces[token].decode("utf-8", errors="replace")

    def trie(self, alphabet: frozenset[str]) -> _Node:
        """The trie of the tokens written only with ``alphabet`` (built once)."""
        root = self._tries.get(alphabet)
        if root is None:
            root = _Node()
            for token, data in enumerate(self.pieces):
                if not data or token in self.end_ids:
                    continue
                try:
                    text = data.decode("ascii")
                except UnicodeDecodeError:
                    continue
                if not set(text) <= alphabet:
                    continue
                node = root
                for ch in text:
                    node = node.children.setdefault(ch, _Node())
                node.tokens.append(token)
            self._tries[alphabet] = root
        return root


def allowed_tokens(
    machine: Machine, vocab: Vocabulary, state: State, budget: int
) -> dict[int, State]:
    """Each token that can come next, with the machine's state after it: its
    text must be readable from ``state`` and the answer must still be
    completable in ``budget - 1`` more tokens."""
    out: dict[int, State] = {}
    stack = [(vocab.trie(machine.alphabet), state)]
    while stack:
        node, current = stack.pop()
        for ch, child in node.children.items():
            after = machine.step(current, ch)
            if not after:
                continue
            if child.tokens and machine.min_chars(after) <= budget - 1:
                for token in child.tokens:
                    out[token] = after
            if child.children:
                stack.append((child, after))
    return out


def constrained_answer(
    machine: Machine,
    vocab: Vocabulary,
    choose: Callable[[Sequence[int]], int],
    feed: Callable[[int], bool],
    *,
    max_tokens: int,
) -> tuple[str, int, str]:
    """``(text, tokens, finish)`` of one answer that is a valid value of the
    machine's schema (``finish`` ``"stop"``), or its prefix when the context
    filled up first (``"length"``).

    ``choose(ids)`` picks one of the allowed token ids from the model's current
    logits; ``feed(token)`` decodes it into the context (``False`` when the
    context is full). Raises :class:`GenerationError` when ``max_tokens`` is too
    small for the shortest valid answer, or when the vocabulary lacks a token
    the answer needs.
    """
    state = machine.start()
    need = machine.min_chars(state)
    if need > max_tokens:
        raise GenerationError(
            f"the shortest valid answer takes {need} tokens and max_tokens is {max_tokens}: "
            "raise max_tokens",
            provider="llamacpp",
        )
    parts: list[str] = []
    count = 0
    while True:
        if state == frozenset({()}):
            return "".join(parts), count, "stop"
        choices = allowed_tokens(machine, vocab, state, max_tokens - count)
        ends = vocab.end_ids if machine.accepts(state) else frozenset()
        if not choices and not ends:
            raise GenerationError(
                f"no token of the vocabulary continues the answer after {''.join(parts)!r:.80}",
                provider="llamacpp",
            )
        token = choose(sorted(set(choices) | ends))
        if token in ends:
            return "".join(parts), count, "stop"
        if token not in choices:
            raise GenerationError(f"the sampler chose token {token}, which is not allowed")
        parts.append(vocab.text(token))
        state = choices[token]
        count += 1
        if state == frozenset({()}):
            return "".join(parts), count, "stop"
        if not feed(token):
            return "".join(parts), count, "length"
