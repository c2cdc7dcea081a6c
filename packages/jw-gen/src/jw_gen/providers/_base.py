"""The base every provider shares, and the lifecycle of the SDK-backed ones.

:class:`Provider` takes :meth:`~Provider.complete`'s arguments as one
:class:`Request`: a backend implements ``_answer(request)``.
:class:`SDKProvider` imports its SDK and builds the client on the first
:meth:`~SDKProvider.complete`, once even when several threads ask at the same
time (constructing a provider never touches the network), sends the request,
and turns every failure into a one-line
:class:`~jw_gen.errors.GenerationError` of one of four shapes::

    <where> answered HTTP <status> (<words>): <fix>      the server said no
    cannot reach <where> (<detail>): <fix>               no connection
    <where> failed: <Type>: <detail>: <fix>              anything else
    <where> returned no answer text for model <m>: <fix> an empty answer

:class:`KeyedProvider` adds what a hosted API needs: a key from ``api_key``
else an environment variable (missing: ``<VAR> is not set: export it or pass
api_key= to the provider``) and a server from ``base_url`` else another
variable. A backend says only how to build its client, how to send a
:class:`Request`, where the text is in the response, and which SDK exceptions
are status and connection errors. ``<words>`` are the server's own: the
``error.message`` (or ``error``, or ``message``) of its JSON answer, else what
the SDK says.
"""

from __future__ import annotations

import math
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

from jw_gen.errors import GenerationError
from jw_gen.providers._sdk import import_sdk, one_line
from jw_gen.providers.defaults import DEFAULT_MODELS

__all__ = [
    "KeyedProvider",
    "Provider",
    "Request",
    "SDKErrors",
    "SDKProvider",
    "server_words",
]


@dataclass(frozen=True)
class Request:
    """One :meth:`Provider.complete` call's arguments."""

    prompt: str
    system: str | None = None
    temperature: float = 0.0
    seed: int | None = 0
    schema: Mapping[str, Any] | None = None

    def chat_messages(self) -> list[dict[str, str]]:
        """The system text (when there is one) and the prompt as chat messages."""
        messages = [{"role": "system", "content": self.system}] if self.system else []
        messages.append({"role": "user", "content": self.prompt})
        return messages


def server_words(body: object, fallback: object) -> str:
    """The message in an error answer's JSON ``body`` (``{"error": {"message":
    ...}}``, ``{"error": "..."}`` or ``{"message": ...}``), else a body that is
    text (an HTML error page), else ``fallback``."""
    for value in (body, fallback):
        if not isinstance(value, Mapping):
            continue
        error = value.get("error")
        if isinstance(error, str) and error.strip():
            return error
        inner = error if isinstance(error, Mapping) else value
        message = inner.get("message")
        if isinstance(message, str) and message.strip():
            return message
    if isinstance(body, str) and body.strip():
        return body
    return str(fallback)


@dataclass(frozen=True)
class SDKErrors:
    """Which of an SDK's exceptions mean a status answer and which no connection;
    ``detail`` names the status error's attribute holding the server's words."""

    status: tuple[type[BaseException], ...]
    connection: tuple[type[BaseException], ...]
    detail: str = "message"


class Provider(ABC):
    """A :class:`~jw_gen.providers.protocol.GenerationProvider` whose
    :meth:`complete` hands its arguments to ``_answer`` as one :class:`Request`."""

    #: The name :func:`~jw_gen.providers.resolve` knows it by; also its
    #: :data:`~jw_gen.providers.defaults.DEFAULT_MODELS` key.
    provider_id: str
    model: str

    def complete(
        self,
        prompt: str,
        *,
        system: str | None = None,
        temperature: float = 0.0,
        seed: int | None = 0,
        schema: Mapping[str, Any] | None = None,
    ) -> str:
        """The answer to ``prompt`` (see :class:`~jw_gen.providers.protocol.GenerationProvider`)."""
        return self._answer(Request(prompt, system, temperature, seed, schema))

    @abstractmethod
    def _answer(self, request: Request) -> str:
        """The answer text; failures raise :class:`~jw_gen.errors.GenerationError`."""


class SDKProvider(Provider):
    """A provider whose SDK client is built on first use; see the module doc."""

    #: The SDK's module, which is also the name of the extra that installs it
    #: (None: named like the provider).
    sdk_module: ClassVar[str | None] = None

    def __init__(self, model: str | None, *, timeout: float) -> None:
        self.model = model or DEFAULT_MODELS[self.provider_id]
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not (math.isfinite(timeout) and timeout > 0)
        ):
            raise GenerationError(
                f"timeout must be a number of seconds above 0 (got {one_line(repr(timeout), 60)}): "
                "pass a positive number of seconds, or leave it out for the default",
                provider=self.provider_id,
            )
        self.timeout = timeout
        self._client: Any = None
        self._client_lock = threading.Lock()

    # What a backend says -------------------------------------------------

    @property
    @abstractmethod
    def where(self) -> str:
        """The server as messages name it (``Ollama at http://...``)."""

    @abstractmethod
    def _connect(self, sdk: ModuleType) -> Any:
        """A new client; raise :meth:`_error` when it cannot be built."""

    @abstractmethod
    def _send(self, client: Any, request: Request) -> Any:
        """Send ``request`` and return the SDK's response."""

    @abstractmethod
    def _text(self, response: Any) -> str | None:
        """The answer text in ``response``, else None."""

    @abstractmethod
    def _errors(self, sdk: ModuleType) -> SDKErrors:
        """The SDK's status and connection exceptions."""

    @abstractmethod
    def _status_fix(self, status: int) -> str:
        """What to do about an HTTP ``status``."""

    @abstractmethod
    def _unreachable_fix(self) -> str:
        """What to do when nothing answers."""

    @abstractmethod
    def _server_fix(self) -> str:
        """What to check when the answer is not the API's (a proxy page, bad JSON)."""

    # The shared lifecycle ------------------------------------------------

    def _error(self, message: str) -> GenerationError:
        return GenerationError(message, provider=self.provider_id)

    def _sdk(self) -> ModuleType:
        module = self.sdk_module or self.provider_id
        try:
            return import_sdk(module, module, self.provider_id)
        except GenerationError:
            raise
        except Exception as exc:  # an SDK that reads its settings on import (OLLAMA_HOST)
            raise self._error(
                f"the '{module}' package failed to load ({type(exc).__name__}: "
                f"{one_line(exc)}): {self._server_fix()}"
            ) from None

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                sdk = self._sdk()
                try:
                    self._client = self._connect(sdk)
                except GenerationError:
                    raise
                except Exception as exc:  # the SDK refused its settings (a malformed URL)
                    raise self._error(
                        f"cannot set up a client for {one_line(self.where, 120)}: "
                        f"{type(exc).__name__}: {one_line(exc)}: {self._server_fix()}"
                    ) from None
            return self._client

    def _answer(self, request: Request) -> str:
        client = self._get_client()
        errors = self._errors(self._sdk())
        try:
            response = self._send(client, request)
        except errors.status as exc:
            status = int(getattr(exc, "status_code", 0) or 0)
            words = one_line(
                server_words(getattr(exc, "body", None), getattr(exc, errors.detail, exc))
            )
            raise self._error(
                f"{self.where} answered HTTP {status} ({words}): {self._status_fix(status)}"
            ) from None
        except errors.connection as exc:
            raise self._error(
                f"cannot reach {self.where} ({one_line(exc, 80)}): {self._unreachable_fix()}"
            ) from None
        except Exception as exc:  # a 200 that is not JSON, a proxy's page, a timeout
            raise self._error(
                f"{self.where} failed: {type(exc).__name__}: {one_line(exc)}: {self._server_fix()}"
            ) from None
        try:
            text = self._text(response)
        except (AttributeError, IndexError, KeyError, TypeError):
            text = None
        if not isinstance(text, str):
            raise self._error(
                f"{self.where} returned no answer text for model {self.model}: {self._server_fix()}"
            )
        return text


class KeyedProvider(SDKProvider):
    """A hosted API: a key from ``api_key`` else ``$<key_env>``, a server from
    ``base_url`` else ``$<base_url_env>`` else the SDK's default, an answer of
    at most ``max_tokens`` tokens (else ``default_max_tokens``; None sends no
    limit). The SDK's client retries nothing: a failure is reported at once."""

    #: The SDK's client class (``sdk.<client_class>(api_key=..., base_url=...)``).
    client_class: ClassVar[str]
    #: ``<env_prefix>_API_KEY`` holds the key, ``<env_prefix>_BASE_URL`` the server.
    env_prefix: ClassVar[str]
    #: The answer's token limit when ``max_tokens`` is not given.
    default_max_tokens: ClassVar[int | None] = None
    #: What a server given as ``base_url`` must speak (``an OpenAI-compatible API``).
    api_kind: ClassVar[str]

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int | None = None,
        timeout: float = 120.0,
    ) -> None:
        super().__init__(model, timeout=timeout)
        if api_key is not None and (not isinstance(api_key, str) or not api_key.strip()):
            raise self._error(
                f"api_key is {'empty' if isinstance(api_key, str) else type(api_key).__name__}: "
                f"pass the key as text, or leave api_key out to read ${self.key_env}"
            )
        self.api_key = api_key
        self.base_url = base_url or os.environ.get(self.base_url_env) or None
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise self._error(
                f"max_tokens must be a whole number of at least 1 (got {max_tokens!r}): "
                "pass a positive token count, or none for the default"
            )
        self.max_tokens = max_tokens if max_tokens is not None else self.default_max_tokens

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def key_env(self) -> str:
        """The variable holding the key."""
        return f"{self.env_prefix}_API_KEY"

    @property
    def base_url_env(self) -> str:
        """The variable holding the server's URL."""
        return f"{self.env_prefix}_BASE_URL"

    @property
    def where(self) -> str:
        return self.base_url or f"the {self.client_class} API"

    def _body(self, **fields: Any) -> dict[str, Any]:
        """The request's arguments: the model, the token limit when there is one,
        then ``fields``."""
        body: dict[str, Any] = {"model": self.model}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body | fields

    def _connect(self, sdk: ModuleType) -> Any:
        key = self.api_key or os.environ.get(self.key_env)
        if not key:
            raise self._error(
                f"{self.key_env} is not set: export it or pass api_key= to the provider"
            )
        client = getattr(sdk, self.client_class)
        return client(api_key=key, base_url=self.base_url, max_retries=0, timeout=self.timeout)

    def _errors(self, sdk: ModuleType) -> SDKErrors:
        return SDKErrors(status=(sdk.APIStatusError,), connection=(sdk.APIConnectionError,))

    def _status_fix(self, status: int) -> str:
        if status in (401, 403):
            return f"check {self.key_env}"
        return "retry later or check the model name"

    def _unreachable_fix(self) -> str:
        return f"check the network, or set {self.base_url_env} to a server that runs"

    def _server_fix(self) -> str:
        return f"check that {self.base_url_env} points at {self.api_kind}"
