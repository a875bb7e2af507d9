# Copied by acp-codegen from templates/python/conformance/running.py. Do not edit here:
# edit the source, then run `make generate`.

"""Acting on a running turn without racing it (layer: cases): the busy prompt, a turn seen
running before the suite acts on it, and the marker that shows what the program had read when
it wrote a frame.

A case that cancels or closes a turn must do so while the turn runs, and may blame the program
for how the turn ended only when the program had certainly read the cancel first. So it sends
the busy prompt (`--busy-prompt`, or the suite's own: a prompt the agent must take long enough
on to be cancelled while it runs), waits until the turn is seen running (`seen_running`: v1, an
update of the turn came and its answer has not; v2, the `running` state), and is a skip, with
the reason, when the turn ended first. Right after its cancel (or close) it sends a marker: a
request of `steps.PROBE_METHOD`, any answer accepted. A program reads its input in order, so a
marker answered before the frame that ended the turn shows that the program had read the cancel
before it wrote that frame (`read_before`); when the turn's end came first, the turn ended as
the cancel was sent, and the case is a skip.
"""

from __future__ import annotations

from collections.abc import Callable

from .cases import Context, Skip
from .peer import Frame, NoAnswer, is_response
from .steps import PROBE_METHOD, long_prompt

Matcher = Callable[[Frame], bool]


def busy_prompt(ctx: Context) -> str:
    """The prompt of a turn a case acts on while it runs: `--busy-prompt`, else the suite's own
    (120 words, which our starters stream 50 ms apart: 6 s)."""
    return ctx.busy_prompt or long_prompt()


async def seen_running(
    ctx: Context, running: Matcher, ended: Matcher, start: int, what: str
) -> Frame:
    """The first frame from index `start` on that shows the turn running (`running`), waited
    for as long as an answer may take (the suite's timeout). A Skip naming `what` (the action
    the case was to take) when the turn ended first (`ended`), or showed nothing in that time."""
    try:
        frame = await ctx.peer.wait_for(
            lambda f: running(f) or ended(f), ctx.timeout, "the turn running", start=start
        )
    except NoAnswer as error:
        raise Skip(f"the turn was not seen running before {what} ({error})") from None
    if not running(frame) or any(ended(f) for f in ctx.peer.received[start:]):
        raise Skip(
            f"the turn ended before it was seen running, so before {what} (give --busy-prompt a "
            "prompt the agent takes longer on)"
        )
    return frame


def send_marker(ctx: Context) -> str:
    """Send the marker (a `PROBE_METHOD` request) right after what a case acts with: its id."""
    marker_id = f"marker-{ctx.next_id()}"
    ctx.peer.request(marker_id, PROBE_METHOD)
    return marker_id


def index_of(ctx: Context, frame: Frame) -> int:
    """Where `frame` is among the frames received (by identity)."""
    return next(n for n, f in enumerate(ctx.peer.received) if f is frame)


def read_before(ctx: Context, marker_id: str, frame: Frame) -> bool:
    """Whether the marker `marker_id` was answered before `frame` came: the program had read the
    marker, and so everything sent before it, when it wrote `frame`."""
    before = ctx.peer.received[: index_of(ctx, frame)]
    return any(is_response(f, marker_id) for f in before)


def ended_as_sent(what: str, ending: str) -> str:
    """The reason of a skip when the turn's end came before the marker's answer."""
    return (
        f"the turn ended as {what} was sent: {ending} came before the answer to the request "
        f"sent right after {what} (not known to have been read first)"
    )
