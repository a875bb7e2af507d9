# Copied by acp-codegen from templates/python/conformance/frames.py. Do not edit here:
# edit the source, then run `make generate`.

"""Big frames (layer: case family): a 10 MB and a 40 MB line, a request and a line that is not
JSON, each answered, and the next request on the same connection answered too: a big frame
must not kill the agent's reader.

ACP and JSON-RPC 2.0 set no frame size: a line of 40 MB is a request like any other, so it is
answered (the suite's reading: an agent with a size limit of its own answers a frame over it
with an error, as our runtimes answer one past 50 MB: -32600 "Frame too large" with its id).
The cases are informative although their quotes say MUST (levels.py): JSON-RPC's "MUST reply"
and "MUST be Null" bind a request or a line the server has read, and whether a reader takes in
10 or 40 MB at all is a size no text sets, the suite's own reading; the source says so.
The request goes to an extension method no agent has (`_conformance/big`, params one long
string): any answer with its id passes. The sent frame is kept in the transcript as its size
and its first bytes, not whole.
"""

from __future__ import annotations

from typing import Any

from .cases import JSON_RPC, Case, Context, Outcome, describe, error_code, failed, passed
from .data import EditionData, Quote
from .levels import SUITES_READING
from .peer import Frame
from .steps import initialize, probe

MB = 1024 * 1024
SIZES = (("10mb", 10 * MB), ("40mb", 40 * MB))
BIG_METHOD = "_conformance/big"
SECONDS_PER_MB = 1.0
"""Time a case may take per megabyte beyond the suite's timeout (writing, reading, parsing: a
second, so that a loaded machine does not fail a program that answers; no text sets a speed)."""
SHOWN = 120

REQUEST = Quote(
    "When a rpc call is made, the Server MUST reply with a Response, except for in the case of "
    "Notifications. (ACP and JSON-RPC 2.0 set no frame size: the suite's reading is that a "
    "request of any size is answered, with an error where the agent has a limit of its own)",
    f"{JSON_RPC} §4 ({SUITES_READING}: no text sets a frame size)",
)
NOT_JSON = Quote(
    "-32700 Parse error: Invalid JSON was received by the server. [...] If there was an error in "
    "detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null. "
    "(the envelope rule book: a line that is not JSON is answered -32700 with a null id, MUST)",
    f"{JSON_RPC} §5, §5.1 ({SUITES_READING}: no text sets a frame size)",
)


def cases(edition: EditionData) -> list[Case]:
    found = []
    for name, size in SIZES:
        budget = size / MB * SECONDS_PER_MB
        found += [
            Case(
                f"frames.request_{name}_answered",
                f"a request of {size // MB} MB is answered, and the next request after it",
                "informative",
                REQUEST,
                _request(size),
                budget=budget,
            ),
            Case(
                f"frames.not_json_{name}_answered",
                f"a line of {size // MB} MB that is not JSON is answered with an error and a null "
                "id, and the next request after it",
                "informative",
                NOT_JSON,
                _not_json(size),
                budget=budget,
            ),
        ]
    return found


def big_line(size: int, request_id: Any, complete: bool) -> bytes:
    """A `_conformance/big` request of exactly `size` bytes (without its newline); cut before
    its end (not JSON: the string never closes) when not `complete`."""
    head = b'{"jsonrpc":"2.0","id":%s,"method":"%s","params":{"text":"' % (
        str(request_id).encode(),
        BIG_METHOD.encode(),
    )
    tail = b'"}}' if complete else b""
    return head + b"a" * (size - len(head) - len(tail)) + tail


def send_big(ctx: Context, line: bytes) -> None:
    """Write `line`; the transcript keeps its size and first bytes."""
    ctx.peer.send_line(line)
    sent = ctx.peer.transcript[-1]
    shown = line[:SHOWN].decode("utf-8", "replace")
    raw = f"(a line of {len(line)} bytes: {shown}…)"
    ctx.peer.transcript[-1] = Frame(sent.t, "sent", False, None, raw)


def _timeout(ctx: Context, size: int) -> float:
    return ctx.timeout + size / MB * SECONDS_PER_MB


def _request(size: int) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialize(ctx)
        request_id = ctx.next_id()
        send_big(ctx, big_line(size, request_id, complete=True))
        answer = await ctx.peer.answer(
            request_id, _timeout(ctx, size), f"the request of {size // MB} MB"
        )
        await probe(ctx, f"after the request of {size // MB} MB")
        return passed(f"answered with {describe(answer)}; the next request too")

    return check


def _not_json(size: int) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialize(ctx)
        start = len(ctx.peer.received)
        send_big(ctx, big_line(size, ctx.next_id(), complete=False))
        answer = await ctx.peer.wait_for(
            lambda f: f.message is not None and "method" not in f.message,
            _timeout(ctx, size),
            f"an answer to the line of {size // MB} MB",
            start=start,
        )
        message = answer.message
        assert message is not None
        await probe(ctx, f"after the line of {size // MB} MB")
        if message.get("id") is not None or error_code(message) is None:
            return failed(f"answered with {describe(message)} and id {message.get('id')!r}")
        return passed(f"answered with {describe(message)} and a null id; the next request too")

    return check
