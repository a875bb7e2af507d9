# Copied by acp-codegen from templates/python/trace/view_turns.py. Do not edit here:
# edit the source, then run `make generate`.

"""A session's timeline on the recording's page (layer: report, for `page`): each turn as a bar
on the recording's time line, then what happened in it in frame order: the prompt, each message
as the client state holds it (as text), each tool call with every status it went through, each
plan version, each permission request with its answer and the user's time, each cancel with the
agent's time to honour it. Every item links to the frame that first showed it.
"""

from __future__ import annotations

from html import escape
from typing import Any

from .view import seconds
from .view_model import Cancel, Permission, Session, Summary, ToolCall, Turn

WHO = {"userMessage": "user", "agentMessage": "agent", "agentThought": "thought"}


def link(index: int | None) -> str:
    """The link to frame `index` (the page's anchor `fN`)."""
    return "" if index is None else f'<a class="f" href="#f{index}">#{index}</a>'


def message(summary: Summary, session: str, target: str, key: str, index: int) -> str:
    text = summary.message_text(session, target, key)
    return (
        f'<div class="message {target}">{link(index)} <b>{WHO.get(target, target)}</b>: '
        f"{escape(text)}</div>"
    )


def tool_item(tool: ToolCall) -> str:
    steps = " → ".join(
        f'{link(index)} <span class="status">{escape(status)}</span> at {t:.3f} s'
        + (f" ({escape(title)})" if n == 0 or tool.history[n - 1][3] != title else "")
        for n, (index, t, status, title) in enumerate(tool.history)
    )
    good = {"completed": "ok", "failed": "bad"}.get(tool.status, "warn")
    kind = f" [{escape(tool.kind)}]" if tool.kind else ""
    return (
        f'<div class="tool">tool call <code>{escape(tool.id)}</code>{kind} '
        f'<span class="{good}">{escape(tool.status)}</span>: {steps}</div>'
    )


def plan_item(index: int, t: float, entries: list[Any]) -> str:
    items = "".join(
        f'<li><span class="status">{escape(str(e.get("status", "")))}</span> '
        f'{escape(str(e.get("content", "")))}</li>'
        for e in entries
        if isinstance(e, dict)
    )
    return f'<div class="plan">{link(index)} plan at {t:.3f} s:<ol>{items}</ol></div>'


def permission_item(permission: Permission) -> str:
    request = permission.request
    offered = ", ".join(str(o.get("optionId", "")) for o in permission.options)
    return (
        f'<div class="permission">{link(request.index)} permission '
        f"<b>{escape(permission.title)}</b> (offered: {escape(offered)}): "
        f"{escape(permission.answer)} {link(request.answer)}, after {seconds(request.latency)}"
        "</div>"
    )


def cancel_item(cancel: Cancel) -> str:
    if cancel.turn is None or cancel.turn.ended is None:
        said = "never honoured" if cancel.turn is not None else "no turn running"
        return (
            f'<div class="cancel bad">{link(cancel.index)} cancel at {cancel.t:.3f} s: {said}</div>'
        )
    good = "ok" if cancel.turn.stop == "cancelled" else "bad"
    return (
        f'<div class="cancel {good}">{link(cancel.index)} cancel at {cancel.t:.3f} s: the turn '
        f"ended {escape(str(cancel.turn.stop))} {link(cancel.turn.end)} after "
        f"{seconds(cancel.honoured)}</div>"
    )


def turn_item(summary: Summary, turn: Turn) -> str:
    stop = turn.stop or "unfinished"
    css = stop if stop in ("end_turn", "cancelled", "error") else "other"
    span = summary.until or 1.0
    left = 100 * turn.request.t / span
    width = (
        100 * ((turn.ended if turn.ended is not None else summary.until) - turn.request.t) / span
    )
    events: list[tuple[int, str]] = [
        (index, message(summary, turn.session, target, key, index))
        for (target, key), index in turn.messages.items()
    ]
    events += [(tool.index, tool_item(tool)) for tool in turn.tools]
    events += [(index, plan_item(index, t, entries)) for index, t, entries in turn.plans]
    events += [(p.request.index, permission_item(p)) for p in turn.permissions]
    events += [(c.index, cancel_item(c)) for c in turn.cancels]
    events.sort(key=lambda event: event[0])
    return (
        f'<li class="turn {css if turn.stop else "unfinished"}" id="turn-{escape(turn.session)}-'
        f'{turn.number}"><details open><summary>turn {turn.number}: <b>{escape(stop)}</b>, '
        f"{seconds(turn.duration)}, {turn.updates} updates {link(turn.request.index)}"
        f"{' … ' + link(turn.end) if turn.end is not None else ''}</summary>"
        f'<div class="bar" title="{turn.request.t:.3f} s to '
        f'{seconds(turn.ended)}"><span style="left:{left:.2f}%;width:{width:.2f}%"></span></div>'
        f'<div class="prompt">{link(turn.request.index)} prompt: {escape(turn.prompt)}</div>'
        + "".join(html for _, html in events)
        + "</details></li>"
    )


def session_section(summary: Summary, session: Session, number: int) -> str:
    parts = [
        f'<h2 id="session-{number}">Session <code>{escape(session.id)}</code></h2>',
        f"<p>from <code>{escape(session.how)}</code> {link(session.index)}; "
        f"{len(session.turns)} turns, {len(session.tools)} tool calls</p>",
        '<ol class="timeline">',
    ]
    if session.outside:
        replayed = "".join(
            message(summary, session.id, target, key, index)
            for (target, key), index in session.outside.items()
        )
        parts.append(
            f'<li class="outside"><details><summary>{len(session.outside)} messages outside a '
            f"turn (a history replayed)</summary>{replayed}</details></li>"
        )
    parts += [turn_item(summary, turn) for turn in session.turns]
    parts.append("</ol>")
    return "\n".join(parts)
