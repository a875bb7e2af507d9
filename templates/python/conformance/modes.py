"""Session modes and config options (layer: case family): v1's `session/set_mode` to a mode
the new session advertised is answered; `session/set_config_option` to a value the session
advertised is answered with the options, that value current; v2: an unknown config id is
refused with -32602. A session that advertises no modes or no config options makes the case a
skip.
"""

from __future__ import annotations

from typing import Any

from .behaviour import open_session, request_said, said, v1, worded_case
from .cases import Case, Context, Outcome, describe, error_code, failed, passed, skipped
from .data import EditionData
from .peer import is_notification

SET_MODE = (
    "SetSessionModeRequest",
    "Sets the current mode for a session. Allows switching between different agent modes "
    '(e.g., "ask", "architect", "code") that affect system prompts, tool availability, and '
    "permission behaviors.",
)
SET_OPTION = {
    1: (
        "SetSessionConfigOptionResponse/properties/configOptions",
        "The full set of configuration options and their current values.",
    ),
    2: (
        "SetSessionConfigOptionRequest",
        "Agents MUST support this method for any session the Client created or resumed where "
        "they advertise config options.",
    ),
}
UNKNOWN_ID = (
    "SetSessionConfigOptionRequest",
    "Agents MUST reject an unknown `configId` or invalid value with `-32602` and leave the "
    "configuration unchanged.",
)
UPDATE_WAIT = 0.3
"""Seconds the suite looks for a `current_mode_update` after the answer (reported, not judged)."""


def cases(edition: EditionData) -> list[Case]:
    if edition.prompt is None or edition.protocol_version not in SET_OPTION:
        return []
    found = []
    if edition.method("session/set_mode") is not None and v1(edition):
        found.append(
            worded_case(
                "modes.set_mode_answered",
                "session/set_mode to a mode the session " "advertised is answered with a result",
                request_said(edition, *SET_MODE),
                _set_mode,
            )
        )
    option = said(edition, *SET_OPTION[edition.protocol_version])
    found.append(
        worded_case(
            "modes.set_config_option_answered_with_options",
            "session/set_config_option to an advertised value is answered with the "
            "options, that value current",
            option,
            _set_option,
        )
    )
    if not v1(edition):
        found.append(
            worded_case(
                "modes.unknown_config_id_invalid_params",
                "session/set_config_option with an unknown configId is refused " "with -32602",
                said(edition, *UNKNOWN_ID),
                _unknown_id,
            )
        )
    return found


def option_id(ctx: Context, option: dict[str, Any]) -> Any:
    return option.get("id" if v1(ctx.edition) else "configId")


def values(option: dict[str, Any]) -> list[Any]:
    """The values a select option offers (flat, or across its groups)."""
    found = []
    for entry in option.get("options") or []:
        if type(entry) is not dict:
            continue
        if "value" in entry:
            found.append(entry["value"])
        for inner in entry.get("options") or []:
            if type(inner) is dict and "value" in inner:
                found.append(inner["value"])
    return found


def select_option(ctx: Context, created: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """The session's first select option and a value to set (another than its current one
    when it offers one)."""
    for option in created.get("configOptions") or []:
        if type(option) is dict and option.get("type") == "select" and values(option):
            offered = values(option)
            other = [v for v in offered if v != option.get("currentValue")]
            return option, (other or offered)[0]
    raise LookupError


def set_option_wire(ctx: Context, session_id: str, config_id: Any, value: Any) -> dict[str, Any]:
    wire = {"sessionId": session_id, "configId": config_id, "value": value}
    return wire if v1(ctx.edition) else {**wire, "type": "id"}


async def _set_mode(ctx: Context) -> Outcome:
    _, created = await open_session(ctx)
    modes = created.get("modes")
    available = modes.get("availableModes") if type(modes) is dict else None
    ids = [m.get("id") for m in available or [] if type(m) is dict and m.get("id") is not None]
    if not ids:
        return skipped("the new session advertises no modes")
    current = modes.get("currentModeId") if type(modes) is dict else None
    mode = next((i for i in ids if i != current), ids[0])
    session_id = created["sessionId"]
    start = len(ctx.peer.received)
    answer = await ctx.call("session/set_mode", {"sessionId": session_id, "modeId": mode})
    if "result" not in answer:
        return failed(f"session/set_mode to the advertised mode {mode!r} was {describe(answer)}")
    seen = await ctx.peer.quiet(UPDATE_WAIT)
    reported = [
        f
        for f in ctx.peer.received[start:] + seen
        if is_notification(f, "session/update")
        and (f.message or {}).get("params", {}).get("update", {}).get("sessionUpdate")
        == "current_mode_update"
    ]
    return passed(f"mode {mode!r} set; {len(reported)} current_mode_update reported")


async def _set_option(ctx: Context) -> Outcome:
    _, created = await open_session(ctx)
    try:
        option, value = select_option(ctx, created)
    except LookupError:
        return skipped("the new session advertises no select config option")
    config_id = option_id(ctx, option)
    wire = set_option_wire(ctx, created["sessionId"], config_id, value)
    answer = await ctx.call("session/set_config_option", wire)
    result = answer.get("result")
    options = result.get("configOptions") if type(result) is dict else None
    if type(options) is not list:
        return failed(f"setting {config_id!r} to {value!r} was answered with {describe(answer)}")
    now = next((o for o in options if type(o) is dict and option_id(ctx, o) == config_id), None)
    if now is None or now.get("currentValue") != value:
        shown = None if now is None else now.get("currentValue")
        return failed(f"set {config_id!r} to {value!r}, the answer's options say {shown!r}")
    return passed(f"{config_id!r} is {value!r}")


async def _unknown_id(ctx: Context) -> Outcome:
    _, created = await open_session(ctx)
    try:
        _, value = select_option(ctx, created)
    except LookupError:
        return skipped("the new session advertises no select config option")
    wire = set_option_wire(ctx, created["sessionId"], "conformance-no-such-option", value)
    answer = await ctx.call("session/set_config_option", wire)
    if error_code(answer) != -32602:
        return failed(f"an unknown configId was answered with {describe(answer)}")
    return passed()
