"""Framing and dispatch (layer: JSON-RPC 2.0 over NDJSON, standard library only).

One JSON-RPC message per line on stdin and stdout, UTF-8, `\\n` ends a line (a `\\r` before it is
dropped, blank lines carry nothing). Nothing but messages is written to stdout; logs go to
stderr. The rules, from JSON-RPC 2.0: a line that is not JSON is answered -32700 with a null id
(§5.1); a value that is not a Request object -32600, with the id when one can be read (§5:
"If there was an error in detecting the id … it MUST be Null"); an unknown method -32601; a
Notification is never answered (§4.1 "The Server MUST NOT reply to a Notification"); a Response
carries `result` or `error`, never both (§5 "Either the result member or error member MUST be
included, but both members MUST NOT be included"). ACP adds `$/cancel_request {requestId}`: the
pending request it names is answered -32800 (Request cancelled).
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

INT64 = 2**63
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INTERNAL_ERROR, REQUEST_CANCELLED = -32603, -32800

Request = Callable[[str, Any, Any], Awaitable[Any]]
"""(method, params, id) → the result; raises RpcError for an error answer."""
Notification = Callable[[str, Any], None]


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def wire(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def log(*words: object) -> None:
    print("stdlib-agent:", *words, file=sys.stderr, flush=True)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # RFC 8259 has no NaN or Infinity


def valid_id(value: Any, null_ok: bool) -> bool:
    """A RequestId: an integer (int64) or a string; null where the edition lists it (v1)."""
    if value is None:
        return null_ok
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -INT64 <= value < INT64
    return isinstance(value, str)


def id_key(value: Any) -> str:
    return json.dumps(value)


class Connection:
    """Reads lines on a thread, handles them on the event loop, writes whole lines."""

    def __init__(self, on_request: Request, on_notification: Notification) -> None:
        self.on_request = on_request
        self.on_notification = on_notification
        self.null_id_ok = False
        """Whether `"id": null` is a request id (v1's RequestId lists null; v2's does not)."""
        self.loop = asyncio.get_running_loop()
        self.lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.running: dict[str, asyncio.Task[None]] = {}
        """Requests read and not yet answered, by id."""
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        """Our requests to the client not yet answered, by id."""
        self.next_id = 0
        self.ended = False
        """Whether stdin has ended."""
        self.closed = False
        """Whether stdout has (a write failed)."""

    # -- writing ---------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False)
        if self.closed:
            return
        try:
            sys.stdout.buffer.write(line.encode("utf-8") + b"\n")
            sys.stdout.buffer.flush()
        except OSError as error:  # the client closed our stdout: nothing more can be said
            self.closed = True
            log(f"stdout closed: {error!r}")

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any) -> tuple[Any, asyncio.Future[dict[str, Any]]]:
        """Send a request; its id and the future its answer (the response object) ends."""
        self.next_id += 1
        request_id = f"stdlib-{self.next_id}"
        answer: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self.waiting[id_key(request_id)] = answer
        if self.ended:
            answer.set_result({"error": {"code": REQUEST_CANCELLED, "message": "input ended"}})
        self.send({"id": request_id, "method": method, "params": params})
        return request_id, answer

    def forget(self, request_id: Any) -> None:
        """Stop waiting for the answer to one of our requests (a late answer is dropped)."""
        answer = self.waiting.pop(id_key(request_id), None)
        if answer is not None and not answer.done():
            answer.cancel()

    # -- reading ---------------------------------------------------------------------------
    def _read(self) -> None:
        stdin = sys.stdin.buffer
        while line := stdin.readline():
            self.loop.call_soon_threadsafe(self.lines.put_nowait, line)
        self.loop.call_soon_threadsafe(self.lines.put_nowait, None)

    async def serve(self) -> None:
        """Handle every line until stdin ends; then answer what was read, and return."""
        threading.Thread(target=self._read, daemon=True).start()
        while (line := await self.lines.get()) is not None:
            self.handle_line(line)
            await asyncio.sleep(0)  # let the requests just started run in order
        self.ended = True
        for answer in self.waiting.values():  # no answer can come any more: not approved
            if not answer.done():
                answer.set_result({"error": {"code": REQUEST_CANCELLED, "message": "input ended"}})
        while self.running:
            await asyncio.gather(*self.running.values(), return_exceptions=True)

    def handle_line(self, line: bytes) -> None:
        text = line.rstrip(b"\n").rstrip(b"\r")
        if not text.strip():
            return  # a blank line carries no message
        try:
            message = json.loads(text, parse_constant=_no_constant)
        except ValueError as error:  # UnicodeDecodeError included
            self.send(
                {"id": None, "error": {"code": PARSE_ERROR, "message": f"Parse error: {error}"}}
            )
            return
        if not isinstance(message, dict):
            what = "a batch" if isinstance(message, list) else "not an object"
            self.invalid(None, f"{what}: a message is one JSON object")
            return
        self.handle_message(message)

    def invalid(self, request_id: Any, why: str) -> None:
        self.send(
            {
                "id": request_id,
                "error": {"code": INVALID_REQUEST, "message": f"Invalid Request: {why}"},
            }
        )

    def handle_message(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        has_id = "id" in message
        readable = has_id and valid_id(message["id"], self.null_id_ok)
        request_id = message["id"] if readable else None
        if "method" not in message:
            if "result" in message or "error" in message:
                self.answered(message)  # a response: never answered
            else:
                self.invalid(request_id, "no method, and not a response")
            return
        if not isinstance(method, str):
            self.invalid(request_id, "method must be a string")
            return
        params = message.get("params")
        if not has_id:  # a notification: never answered, even when malformed
            if message.get("jsonrpc") == "2.0" and isinstance(params, (dict, list, type(None))):
                self.notified(method, params)
            return
        if not readable:
            self.invalid(None, "id must be an integer (int64) or a string")
        elif message.get("jsonrpc") != "2.0":
            self.invalid(request_id, 'jsonrpc must be exactly "2.0"')
        elif not isinstance(params, (dict, list, type(None))):
            self.invalid(request_id, "params must be an object or an array")
        elif method.startswith("$/"):
            self.send(
                {
                    "id": request_id,
                    "error": {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"},
                }
            )
        else:
            key = id_key(request_id)
            task = asyncio.ensure_future(self.run(method, params, request_id, key))
            self.running[key] = task  # a reused id: the newer request is the one cancellable

    async def run(self, method: str, params: Any, request_id: Any, key: str) -> None:
        try:
            result = await self.on_request(method, params, request_id)
            answer: dict[str, Any] = {"id": request_id, "result": result}
        except RpcError as error:
            answer = {"id": request_id, "error": error.wire()}
        except asyncio.CancelledError:
            answer = {
                "id": request_id,
                "error": {"code": REQUEST_CANCELLED, "message": "Request cancelled"},
            }
        except Exception as error:  # any fault is the request's answer
            log(f"{method} failed: {error!r}")
            answer = {
                "id": request_id,
                "error": {"code": INTERNAL_ERROR, "message": "Internal error"},
            }
        finally:
            if self.running.get(key) is asyncio.current_task():
                del self.running[key]
        self.send(answer)

    def notified(self, method: str, params: Any) -> None:
        if method == "$/cancel_request":
            named = params.get("requestId") if isinstance(params, dict) else None
            task = self.running.get(id_key(named)) if valid_id(named, True) else None
            if task is not None:
                task.cancel()  # answered -32800 by `run` (a finished request: nothing to do)
            return
        try:
            self.on_notification(method, params)
        except Exception as error:  # a notification is never answered
            log(f"{method} notification failed: {error!r}")

    def answered(self, message: dict[str, Any]) -> None:
        key = id_key(message.get("id"))
        answer = self.waiting.pop(key, None)
        if answer is not None and not answer.done():
            answer.set_result(message)
