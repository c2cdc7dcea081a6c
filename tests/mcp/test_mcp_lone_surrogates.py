"""A request whose JSON carries a lone surrogate escape (``"\\ud83d"``: half of
an emoji, as a JavaScript client sends a string cut in the middle of a pair)
is answered. The SDK's stdio reader refused such a line and dropped it, so the
client waited for an answer that never came; the half becomes U+FFFD, the rule
every source's text follows."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.mcp_client import REPO

ANSWER_SECONDS = 30


class RawClient:
    """Writes JSON-RPC lines as given (escapes included) and reads the answers."""

    def __init__(self, tmp_path: Path, root: Path) -> None:
        env = {
            "JW_STORE": str(tmp_path / "store.sqlite"),
            "JW_EMBEDDER": "fake",
            "JW_HOME": str(tmp_path / "home"),
            "PATH": "/usr/bin:/bin",
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from jw_mcp.server import main; main()", "--root", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, cwd=REPO,
        )  # fmt: skip
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.proc.stdout is not None
        out = self.proc.stdout
        threading.Thread(target=lambda: [self.lines.put(x) for x in out], daemon=True).start()
        self.next_id = 0

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode("ascii") + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params_json: str) -> dict[str, Any]:
        self.next_id += 1
        self.send(
            f'{{"jsonrpc":"2.0","id":{self.next_id},"method":"{method}","params":{params_json}}}'
        )
        try:
            answer = json.loads(self.lines.get(timeout=ANSWER_SECONDS))
        except queue.Empty:
            pytest.fail(f"no answer to {params_json} in {ANSWER_SECONDS} s")
        assert answer["id"] == self.next_id
        return answer

    def call(self, tool: str, arguments_json: str) -> tuple[bool, str]:
        result = self.request("tools/call", f'{{"name":"{tool}","arguments":{arguments_json}}}')
        result = result["result"]
        return result["isError"], result["content"][0]["text"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.mark.timeout(180)
def test_a_lone_surrogate_in_a_call_is_answered_as_u_fffd(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "note.txt").write_text("A note about the soul and hope.\n", encoding="utf-8")
    c = RawClient(tmp_path, root)
    try:
        init = '{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}'
        assert "result" in c.request("initialize", init)
        c.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        error, text = c.call("ingest", '{"kind":"text","source":"note.txt","source_id":"n\\ud83d"}')
        assert not error and json.loads(text)["source_id"] == "n\ufffd"
        error, text = c.call("search", '{"query":"soul \\ud83d","k":1}')
        assert not error and [h["source_id"] for h in json.loads(text)] == ["n\ufffd"]
        error, text = c.call("get_chunk", '{"chunk_id":"\\udc00"}')
        assert error and text.endswith(
            "no chunk '\ufffd' in the store: use an id a search returned"
        )
        # a pair is one character, as before
        error, text = c.call("search", '{"query":"soul \\ud83d\\ude00","k":1}')
        assert not error
    finally:
        c.close()
