"""Chat prompt formats of the model families the ``llamacpp`` provider supports.

A GGUF file carries its chat template as Jinja text (``tokenizer.chat_template``).
Rather than run arbitrary template code, the provider recognises the family
from the markers that template uses and renders a system + user turn in that
family's format, ending where the assistant's answer starts. When the file has
no template, the family comes from ``general.architecture``; a family can also
be named outright (``template=`` on the provider).

Each family also names its end-of-turn markers: generation stops at the first
one even when the model's vocabulary does not flag that token as end-of-generation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jw_gen.errors import GenerationError

__all__ = ["FAMILIES", "ChatFormat", "detect_family", "render"]


@dataclass(frozen=True, slots=True)
class ChatFormat:
    """How one family lays out a turn: ``{system}``/``{user}`` slots, and its stops."""

    system_turn: str
    user_turn: str
    assistant_start: str
    stops: tuple[str, ...]
    #: Families without a system role put the system text before the user's.
    system_in_user: bool = False


FAMILIES: dict[str, ChatFormat] = {
    "chatml": ChatFormat(
        system_turn="<|im_start|>system\n{system}<|im_end|>\n",
        user_turn="<|im_start|>user\n{user}<|im_end|>\n",
        assistant_start="<|im_start|>assistant\n",
        stops=("<|im_end|>", "<|endoftext|>", "<|im_start|>"),
    ),
    "gemma": ChatFormat(
        system_turn="",
        user_turn="<start_of_turn>user\n{user}<end_of_turn>\n",
        assistant_start="<start_of_turn>model\n",
        stops=("<end_of_turn>", "<start_of_turn>"),
        system_in_user=True,
    ),
    "llama3": ChatFormat(
        system_turn="<|start_header_id|>system<|end_header_id|>\n\n{system}<|eot_id|>",
        user_turn="<|start_header_id|>user<|end_header_id|>\n\n{user}<|eot_id|>",
        assistant_start="<|start_header_id|>assistant<|end_header_id|>\n\n",
        stops=("<|eot_id|>", "<|end_of_text|>", "<|start_header_id|>"),
    ),
    "phi3": ChatFormat(
        system_turn="<|system|>\n{system}<|end|>\n",
        user_turn="<|user|>\n{user}<|end|>\n",
        assistant_start="<|assistant|>\n",
        stops=("<|end|>", "<|endoftext|>", "<|user|>"),
    ),
}

#: A marker found in a GGUF chat template -> its family (first match wins).
_MARKERS = (
    ("<|im_start|>", "chatml"),
    ("<start_of_turn>", "gemma"),
    ("<|start_header_id|>", "llama3"),
    ("<|assistant|>", "phi3"),
)
#: ``general.architecture`` -> family, for files without a template.
_ARCHITECTURES = {"qwen2": "chatml", "qwen3": "chatml", "gemma2": "gemma", "gemma3": "gemma", "phi3": "phi3"}  # fmt: skip


def detect_family(metadata: Mapping[str, Any], override: str | None = None) -> str:
    """The family of a model from its GGUF metadata (or ``override`` when given).

    Raises :class:`GenerationError` naming the supported families when neither
    the template nor the architecture says one.
    """
    names = ", ".join(sorted(FAMILIES))
    if override:
        family = override.strip().lower()
        if family not in FAMILIES:
            raise GenerationError(
                f"unknown chat template family {override!r}; supported: {names}",
                provider="llamacpp",
            )
        return family
    template = metadata.get("tokenizer.chat_template")
    if isinstance(template, str):
        for marker, family in _MARKERS:
            if marker in template:
                return family
    arch = str(metadata.get("general.architecture") or "")
    if not isinstance(template, str) and arch in _ARCHITECTURES:
        return _ARCHITECTURES[arch]
    what = "its chat template" if isinstance(template, str) else f"architecture {arch or '?'}"
    raise GenerationError(
        f"cannot tell the chat format of this model from {what}; name one with "
        f"template=<family> (supported: {names})",
        provider="llamacpp",
    )


def render(family: str, user: str, system: str | None = None) -> str:
    """The prompt text of one system + user exchange, ending where the answer starts."""
    fmt = FAMILIES[family]
    if system and fmt.system_in_user:
        return fmt.user_turn.format(user=f"{system}\n\n{user}") + fmt.assistant_start
    head = fmt.system_turn.format(system=system) if system else ""
    return head + fmt.user_turn.format(user=user) + fmt.assistant_start
