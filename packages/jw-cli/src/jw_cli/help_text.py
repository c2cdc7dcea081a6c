"""Help written for people: plain metavars instead of Typer's type labels.

Typer labels a value by its Python type (``<str>``, ``<int>``, ``<path>``),
a flag (``-h``/``--help`` included) as ``<bool>`` and a required argument as
``{query}`` in the usage line. :func:`tidy` walks the built command tree once:
an option without a metavar gets a word (``TEXT``, ``N``, ``NUMBER``,
``PATH``), a flag none, an argument its name in capitals (``QUERY``, shown
bare in the usage line, ``[QUERY]`` when optional). Choices written as
``<a|b|c>`` (:func:`jw_cli.options.choices_metavar`) are kept.
"""

from __future__ import annotations

from typing import Any

import click
from typer.core import TyperArgument, TyperOption

__all__ = ["tidy"]

_WORDS = {"str": "TEXT", "int": "N", "float": "NUMBER", "path": "PATH"}


class _Argument(TyperArgument):
    """An argument named by its metavar alone, in the usage line and the table."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: click.Context) -> str | None:
        return None


def _option(param: TyperOption, ctx: click.Context) -> None:
    if param.metavar is not None:
        return
    if param.is_flag:
        param.metavar = ""
        return
    label = (param.display_type(ctx) or "").strip("<>")
    param.metavar = _WORDS.get(label.lower(), label.upper() or "VALUE")


def _help_option(command: click.Command) -> None:
    made = command.get_help_option

    def get_help_option(ctx: click.Context) -> click.Option | None:
        option = made(ctx)
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = get_help_option  # type: ignore[method-assign]


def tidy(command: click.Command) -> click.Command:
    """``command`` and every subcommand with the metavars described above."""
    ctx = click.Context(command)
    for param in command.params:
        if isinstance(param, TyperArgument):
            if param.metavar is None:
                param.metavar = (param.name or "value").upper()
            param.__class__ = _Argument
        elif isinstance(param, TyperOption):
            _option(param, ctx)
    _help_option(command)
    commands: dict[str, Any] = getattr(command, "commands", {})
    for sub in commands.values():
        tidy(sub)
    return command
