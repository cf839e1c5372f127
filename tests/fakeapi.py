"""A loopback fake of the Anthropic Messages API for tests (the SDK's httpx2 transport defeats respx).

    with FakeMessagesAPI() as api:
        api.script(Reply("你好"), Reply.overloaded())
        provider = AnthropicProvider(ProviderConfig(base_url=api.base_url, env={"ANTHROPIC_API_KEY": "k"}))
        ...
        api.requests[0].body["system"]

Only listens on 127.0.0.1, serves POST /v1/messages (JSON or SSE), records each request, and every reply
is finite. Replies come from a `responder(body) -> Reply` callable, else from a FIFO queue per agent (the
agent is picked by `agent_of(body)`, None = the default queue). With nothing scripted the server answers
400 so a test fails fast instead of the SDK retrying.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

Responder = Callable[[dict[str, Any]], "Reply"]


@dataclass
class Reply:
    """One scripted answer. Error statuses send `json_body`; status 200 streams or returns `text`."""

    text: str = "好的。"
    stop_reason: str | None = "end_turn"
    usage: dict[str, int] | None = None
    chunks: int | None = None  # split text into this many deltas ...
    chunk_size: int | None = None  # ... or into pieces of this many characters (default 4)
    delay_between_chunks_s: float = 0.0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    json_body: dict[str, Any] | None = None
    error_event_after_chunks: int | None = None
    error_event: dict[str, Any] = field(
        default_factory=lambda: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    cut_connection_after_chunks: int | None = None
    first_byte_delay_s: float = 0.0
    model: str | None = None  # default: echo the requested model
    json_for_stream: bool = False  # answer a streaming request with a plain JSON message (litellm's proxy does)

    @classmethod
    def error(cls, status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> Reply:
        body = {"type": "error", "error": {"type": error_type, "message": message}}
        return cls(status=status, json_body=body, headers=dict(headers or {}))

    @classmethod
    def rate_limited(cls, retry_after_s: float = 0.05) -> Reply:
        return cls.error(429, "rate_limit_error", "Rate limited", {"retry-after": str(retry_after_s)})

    @classmethod
    def overloaded(cls, retry_after_s: float = 0.05) -> Reply:
        return cls.error(529, "overloaded_error", "Overloaded", {"retry-after": str(retry_after_s)})

    @classmethod
    def server_error(cls, retry_after_s: float = 0.05) -> Reply:
        return cls.error(500, "api_error", "Internal server error", {"retry-after": str(retry_after_s)})

    def pieces(self) -> list[str]:
        text = self.text
        if not text:
            return []
        if self.chunks:
            n = max(1, min(self.chunks, len(text)))
            size, extra = divmod(len(text), n)
            out, pos = [], 0
            for i in range(n):
                step = size + (1 if i < extra else 0)
                out.append(text[pos : pos + step])
                pos += step
            return out
        size = self.chunk_size or 4
        return [text[i : i + size] for i in range(0, len(text), size)]

    def usage_dict(self, body: dict[str, Any]) -> dict[str, int]:
        if self.usage is not None:
            return dict(self.usage)
        prompt = json.dumps(body.get("system", "")) + json.dumps(body.get("messages", []))
        return {
            "input_tokens": max(1, len(prompt) // 4),
            "output_tokens": max(1, len(self.text)),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: dict[str, Any]

    @property
    def raw(self) -> str:
        return json.dumps(self.body, ensure_ascii=False)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    api: FakeMessagesAPI


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # an idle keep-alive connection ends after this
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        api = self.server.api
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = urlsplit(self.path).path  # absolute-form when reached through a proxy
        api._record(RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, body))
        if path != "/v1/messages":
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
            return
        reply = api._next_reply(body)
        if reply.first_byte_delay_s and api._stopping.wait(reply.first_byte_delay_s):
            return
        try:
            if reply.status != 200:
                self._send_json(reply.status, reply.json_body or {}, reply.headers)
            elif body.get("stream") and not reply.json_for_stream:
                self._stream(reply, body)
            else:
                payload = reply.json_body or self._message(reply, body, reply.text, reply.stop_reason)
                self._send_json(200, payload, reply.headers)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            api._note_disconnect()
            self.close_connection = True

    # ------------------------------------------------------------------ helpers

    def _message(self, reply: Reply, body: dict[str, Any], text: str, stop: str | None) -> dict[str, Any]:
        content = [{"type": "text", "text": text}] if text else []
        return {
            "id": "msg_fake_" + str(self.server.api.request_count),
            "type": "message",
            "role": "assistant",
            "model": reply.model or body.get("model", "fake-model"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": reply.usage_dict(body),
        }

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake_" + str(self.server.api.request_count))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _event(self, name: str, payload: dict[str, Any]) -> None:
        self._chunk(f"event: {name}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n".encode())

    def _cut(self) -> None:
        """Drop the connection without the terminating chunk, as a broken network would."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()

    def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
        api = self.server.api
        usage = reply.usage_dict(body)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_fake_" + str(api.request_count))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()

        start = self._message(reply, body, "", None)
        start["usage"] = {**usage, "output_tokens": 1}
        self._event("message_start", {"type": "message_start", "message": start})
        self._event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        )
        self._event("ping", {"type": "ping"})
        pieces = reply.pieces()
        for i, piece in enumerate(pieces):
            if reply.error_event_after_chunks is not None and i == reply.error_event_after_chunks:
                self._event("error", reply.error_event)
                self._chunk(b"")  # terminating chunk (b"0\r\n\r\n")
                return
            if reply.cut_connection_after_chunks is not None and i == reply.cut_connection_after_chunks:
                self._cut()
                return
            if i and reply.delay_between_chunks_s and api._stopping.wait(reply.delay_between_chunks_s):
                return
            self._event(
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}},
            )
        if reply.error_event_after_chunks is not None and reply.error_event_after_chunks >= len(pieces):
            self._event("error", reply.error_event)
            self._chunk(b"")
            return
        if reply.cut_connection_after_chunks is not None and reply.cut_connection_after_chunks >= len(pieces):
            self._cut()
            return
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": usage,
            },
        )
        self._event("message_stop", {"type": "message_stop"})
        self._chunk(b"")


class FakeMessagesAPI:
    """The fake server; use as a context manager (or call start()/stop())."""

    def __init__(
        self,
        responder: Responder | None = None,
        agent_of: Callable[[dict[str, Any]], str | None] | None = None,
    ) -> None:
        self.responder = responder
        self.agent_of = agent_of
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        self._queues: defaultdict[str | None, deque[Reply]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeMessagesAPI:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.api = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # ------------------------------------------------------------------ scripting

    def script(self, *replies: Reply, agent: str | None = None) -> None:
        with self._lock:
            self._queues[agent].extend(replies)

    def pending(self, agent: str | None = None) -> int:
        with self._lock:
            return len(self._queues[agent])

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _note_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self.responder is not None:
            return self.responder(body)
        agent = self.agent_of(body) if self.agent_of is not None else None
        with self._lock:
            queue = self._queues[agent]
            if queue:
                return queue.popleft()
        return Reply.error(400, "invalid_request_error", f"fake api: no scripted reply left for agent {agent!r}")


@contextmanager
def fake_messages_api(responder: Responder | None = None) -> Iterator[FakeMessagesAPI]:
    """Context-manager helper for fixtures: `with fake_messages_api() as api: yield api`."""
    api = FakeMessagesAPI(responder)
    api.start()
    try:
        yield api
    finally:
        api.stop()
