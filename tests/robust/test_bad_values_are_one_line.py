"""Values a chunker cannot use, a PDF encrypted with a certificate and failures
nobody expected each end in one line naming the problem: in Python (a
``ConfigError`` or ``IngestError``), in the CLI (exit code and ``error:``
line, no traceback) and over MCP (a tool error that names it)."""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import pypdf
import pytest

from jw_cli.app import main
from jw_rag.chunkers import get_chunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import ingest_pdf
from jw_rag.store import SQLiteStore
from tests.ingest.conftest import write_pdf
from tests.mcp.mcp_client import connect

LONG = "\n\n".join(
    " ".join(f"Sentence {i}.{j} about gardens and water." for j in range(12)) for i in range(20)
)

BAD_SPECS = [
    ("semantic:max_chars=100.5", "max_chars must be a whole number (write it without a decimal point or exponent), got 100.5"),
    ("embedding:window=1e9", "window must be a whole number (write it without a decimal point or exponent), got 1000000000.0"),
    ("paragraph:max_chars=100.5", "max_chars must be a whole number (write it without a decimal point or exponent), got 100.5"),
    ("page:max_chars=300.5", "max_chars must be a whole number (write it without a decimal point or exponent), got 300.5"),
    ("structure:min_chars=0.5", "min_chars must be a whole number (write it without a decimal point or exponent), got 0.5"),
    ("semantic:target_chars=300.5", "target_chars must be a whole number (write it without a decimal point or exponent), got 300.5"),
    ("semantic:max_continuations=true", "max_continuations must be a whole number, got True"),
    ("paragraph:max_chars=true", "max_chars must be a whole number, got True"),
    ("semantic:max_chars=99999999999", "max_chars must be from 1 to 1000000000, got 99999999999"),
    ("semantic:overflow=nan", "overflow must be in [0, 1], got nan"),
    ("semantic:overflow=abc", "overflow must be a number, got 'abc'"),
    ("embedding:top_percent=inf", "top_percent must be in (0, 100], got inf"),
    ("embedding:top_percent=0", "top_percent must be in (0, 100], got 0"),
    ("structure:prefix_headings=1", "prefix_headings must be true or false, got 1"),
    ("page:overlap=maybe", "overlap must be true or false, got 'maybe'"),
    ("page:overlap_chars=-3", "overlap_chars must be from 1 to 1000000000, got -3"),
    # a text option takes "5" as written (tests/chunkers/test_text_option_values.py)
    ("parent-child:parent=5", "unknown chunker '5'; valid names: embedding, llm, page, paragraph, parent-child, semantic, structure"),
    ("llm:provider=heuristic,max_prompt_chars=1e3", "max_prompt_chars must be a whole number (write it without a decimal point or exponent), got 1000.0"),
    ("llm:provider=heuristic,cache_max_bytes=1.5", "cache_max_bytes must be a whole number >= 0, got 1.5"),
    ("llm:provider=heuristic,strict=yes", "strict must be true or false, got 'yes'"),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS)
def test_bad_chunker_values_are_config_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        get_chunker(spec).chunk(LONG, "doc")
    assert str(info.value) == message


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS)
def test_cli_bad_chunker_values_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    doc = tmp_path / "long.txt"
    doc.write_text(LONG, "utf-8")
    assert main(["rag", "chunk", str(doc), "--chunker", spec, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {message}\n"


def certificate_pdf(path: Path) -> Path:
    """A real one-page PDF, encrypted, its security handler renamed to the
    public-key (certificate) one."""
    plain = write_pdf(path.with_suffix(".plain.pdf"), [[(72, 700, "Hello encrypted world")]])
    writer = pypdf.PdfWriter(clone_from=str(plain))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    data = buf.getvalue()
    assert data.count(b"/Filter /Standard") == 1
    path.write_bytes(data.replace(b"/Filter /Standard", b"/Filter /Adobe.PubSec"))
    return path


def _cert_message(path: Path) -> str:
    return (
        f"{path} is encrypted in a way this reader cannot open (only Standard PDF encryption "
        "handler is available: a certificate or another security handler); decrypt it with "
        "the tool that made it, or print it to a new PDF, then ingest that"
    )


def test_certificate_encrypted_pdf_is_an_ingest_error(tmp_path: Path) -> None:
    pdf = certificate_pdf(tmp_path / "cert.pdf")
    with SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=8)) as store:
        with pytest.raises(IngestError) as info:
            ingest_pdf(store, pdf)
        assert str(info.value) == _cert_message(pdf)
        assert store.stats()["chunks"] == 0


def test_cli_certificate_encrypted_pdf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    pdf = certificate_pdf(tmp_path / "cert.pdf")
    code = main(["--store", str(tmp_path / "s.sqlite"), "rag", "ingest", "pdf", str(pdf)])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and err == f"error: {_cert_message(pdf)}\n"


def test_mcp_names_every_failure(tmp_path: Path) -> None:
    pdf = certificate_pdf(tmp_path / "cert.pdf")
    text = tmp_path / "long.txt"
    text.write_text(LONG, "utf-8")
    broken = (
        "import jw_rag.ingest.loader as loader\n"
        "def _boom(*args, **kwargs):\n"
        "    raise NotImplementedError()\n"
        "loader._READERS['markdown'] = _boom\n"
    )

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(tmp_path), prelude=broken) as c:
            error, message = await c.call("ingest", kind="pdf", source=str(pdf))
            assert error and message == f"Error executing tool ingest: {_cert_message(pdf)}"
            error, message = await c.call(
                "ingest",
                kind="text",
                source=str(text),
                chunker="semantic",
                chunker_options={"max_chars": 100.5},
            )
            assert error and message == (
                "Error executing tool ingest: max_chars must be a whole number (write it "
                "without a decimal point or exponent), got 100.5"
            )
            error, message = await c.call("ingest", kind="markdown", source=str(text))
            assert error and message == (
                "Error executing tool ingest: unexpected NotImplementedError (a bug in "
                "jw-agent-toolkit or a library it uses: please report it with the command and "
                "input that caused it)"
            )

    anyio.run(scenario)
