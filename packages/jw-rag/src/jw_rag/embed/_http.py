"""JSON over HTTP for the server-backed embedders: timeouts, retries, one-line errors."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from jw_rag.errors import EmbeddingError

__all__ = ["JsonPoster"]

_RETRIED_STATUS = frozenset({500, 502, 503, 504})


class JsonPoster:
    """POSTs JSON to one server and returns the decoded JSON answer.

    Connection failures, timeouts and 5xx answers are retried ``retries`` times
    (with ``backoff`` seconds, doubled each time, between attempts); anything
    else fails at once. ``unreachable_hint`` is appended to the error raised when
    the server cannot be reached, ``describe_status(status, body)`` may return a
    fix for a 4xx answer.
    """

    def __init__(
        self,
        base_url: str,
        *,
        label: str,
        unreachable_hint: str,
        headers: dict[str, str] | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 5.0,
        retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.label = label
        self.unreachable_hint = unreachable_hint
        self.headers = dict(headers or {})
        self.timeout = httpx.Timeout(timeout, connect=connect_timeout)
        self.retries = max(0, retries)
        self.backoff = max(0.0, backoff)
        self._client: httpx.Client | None = None

    def _get_client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout, headers=self.headers)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def post(self, path: str, payload: dict[str, Any], describe_status: Any = None) -> Any:
        url = f"{self.base_url}{path}"
        client = self._get_client()
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last_try = attempt == self.retries
            try:
                response = client.post(url, json=payload)
            except httpx.TransportError as exc:
                if last_try:
                    raise EmbeddingError(
                        f"{self.label} at {url} is unreachable after {attempt + 1} attempts "
                        f"({type(exc).__name__}: {exc}); {self.unreachable_hint}"
                    ) from exc
            else:
                if response.status_code in _RETRIED_STATUS and not last_try:
                    pass
                elif response.status_code >= 400:
                    raise self._status_error(url, response, describe_status)
                else:
                    return self._decode(url, response)
            time.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns

    def _status_error(self, url: str, response: httpx.Response, describe: Any) -> EmbeddingError:
        body = " ".join(response.text.split())[:300]
        fix = describe(response.status_code, body) if describe else None
        return EmbeddingError(
            f"{self.label} at {url} answered HTTP {response.status_code}: {body or '(empty)'}"
            + (f"; {fix}" if fix else "")
        )

    def _decode(self, url: str, response: httpx.Response) -> Any:
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            start = " ".join(response.text.split())[:80]
            raise EmbeddingError(
                f"{self.label} at {url} answered something that is not JSON ({start!r}); "
                "check that the URL points at the right server"
            ) from exc
