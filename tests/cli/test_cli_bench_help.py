"""`jw eval chunker-bench --help` names every option a variant takes besides its chunker's."""

from __future__ import annotations

from typer.testing import CliRunner

from jw_cli.app import app
from jw_eval.bench.variants import VARIANT_OPTIONS


def test_the_variants_help_names_every_variant_option() -> None:
    result = CliRunner().invoke(app, ["eval", "chunker-bench", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "Besides its chunker's options a variant takes" in text
    for option in VARIANT_OPTIONS:
        assert option.split(" ")[0] in text
    assert "prefix" in text and "paragraph:prefix=0.3" in text
