"""A recording replayed through the Python runtime (layer: field tooling; its TypeScript and Go
twins are tests/field/replay/replay.ts and tests/field/replay/go/main.go, the same walk).

`python -m tests.field.replay RECORDING.jsonl` prints one JSON object:

- `protocol`: the edition the conversation negotiated (`protocolVersion` of `initialize`'s answer);
- `problems`: every message the runtime's generated decoders refuse, decoded as the edition's
  stable and unstable schemas both (`{"frame", "line", "edition", "method", "pointer",
  "message"}`): a request's or notification's params by its method, an answer's result by the
  method of the request it answers, an error as `Error`. `_`-prefixed methods are extensions,
  never decoded (`extensions`); a method the edition lacks is listed in `unknown`;
- `dropped`: where a message the decoders accept does not come back whole when the decoded value
  is encoded again (same keys): what the runtime does not know must be kept, so only the schema's
  own lenient rules (`x-deserialize-default-on-error`: an unknown tool `kind` is dropped) may put
  anything here;
- `state`: the snapshot of the runtime's `ClientState` (the edition's unstable table, the widest)
  after the state messages of the conversation, fed as a client feeds them: what the agent sends
  (requests and notifications), the turn request the client sends (v1's `session/prompt`), the
  answer to each request the client sent (with that request's params);
- `beyond` (this runtime only), per edition: where a message holds what that schema does not
  have (fields it does not name, variants it does not know; `_meta` is everyone's), as
  `received|sent METHOD POINTER: what` (`received`: the agent wrote it).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from acp_protocol.conformance.output_schema import validate
from acp_protocol.runtime.client_state import ClientState
from acp_protocol.runtime.validators import validator_for
from pydantic import BaseModel, ValidationError

Json = dict[str, Any]


def frames(path: Path) -> Iterator[tuple[int, int, str, Any]]:
    """(frame index, line number, direction, JSON value or None for a line that is not JSON);
    each message of a JSON-RPC batch is one, under its frame's index."""
    index = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        record = json.loads(line)
        if isinstance(record, dict) and record.get("dir") in ("sent", "received"):
            value = record.get("json") if "json" in record else None
            for message in value if isinstance(value, list) and value else [value]:
                yield index, number, record["dir"], message
            index += 1


def negotiated(path: Path) -> int:
    """The `protocolVersion` of the answer to the client's `initialize` (1 when there is none)."""
    asked = None
    for _, _, direction, value in frames(path):
        if not isinstance(value, dict):
            continue
        if direction == "sent" and value.get("method") == "initialize":
            asked = value.get("id")
        elif direction == "received" and "method" not in value and value.get("id") == asked:
            version = (value.get("result") or {}).get("protocolVersion")
            return version if type(version) is int else 1
    return 1


def id_key(direction: str, value: Any) -> str:
    """A request's id as a key that keeps its type (7 and "7" differ), by who sent it."""
    return f"{direction}:{type(value).__name__}:{json.dumps(value)}"


def other(direction: str) -> str:
    return "received" if direction == "sent" else "sent"


class Edition:
    """One edition's decoders by method (`acp_protocol.<protocol>[.unstable]`)."""

    def __init__(self, protocol: str, unstable: bool) -> None:
        self.name = protocol + ("/unstable" if unstable else "")
        package = f"acp_protocol.{protocol}" + (".unstable" if unstable else "")
        methods = importlib.import_module(package + ".methods")
        self.models: ModuleType = importlib.import_module(package + ".models")
        self.requests, self.notifications = methods.REQUESTS, methods.NOTIFICATIONS

    def spec(self, method: str, request: bool) -> Any:
        first, second = (
            (self.requests, self.notifications) if request else (self.notifications, self.requests)
        )
        return first.get(method) or second.get(method)


def check(wire_type: Any, value: Any, prefix: str) -> tuple[Any, str | None, str]:
    """(the decoded value, None) or (None, the pointer, what is wrong)."""
    try:
        return validator_for(wire_type)(value), None, ""
    except (ValidationError, ValueError):
        problem = validate(wire_type, value, prefix)
        if problem is None:  # refused by the fast path only: cannot happen, say so if it does
            return None, prefix, "refused"
        return None, problem.pointer, problem.what


def encoded(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.to_wire()  # type: ignore[attr-defined]
    if isinstance(value, list):
        return [encoded(item) for item in value]
    if isinstance(value, dict):
        return {key: encoded(item) for key, item in value.items()}
    return value


def first_difference(given: Any, kept: Any, pointer: str) -> str | None:
    """The pointer of the first place where `kept` is not `given` (None: they are equal)."""
    if isinstance(given, dict) and isinstance(kept, dict):
        for key in sorted(set(given) | set(kept)):
            if key not in given or key not in kept:
                return f"{pointer}/{escape(key)}"
            found = first_difference(given[key], kept[key], f"{pointer}/{escape(key)}")
            if found is not None:
                return found
        return None
    if isinstance(given, list) and isinstance(kept, list) and len(given) == len(kept):
        for index, (a, b) in enumerate(zip(given, kept, strict=True)):
            found = first_difference(a, b, f"{pointer}/{index}")
            if found is not None:
                return found
        return None
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (given, kept))
    same = given == kept and (numbers or type(given) is type(kept))  # JSON: 0 and 0.0 are one
    return None if same else pointer


def escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def beyond(value: Any, pointer: str) -> Iterator[str]:
    """What the decoded `value` holds that the schema does not have, as `pointer: what`."""
    if isinstance(value, BaseModel):
        if type(value).__name__.startswith("Unknown"):
            yield f"{pointer}: a variant the schema does not know"
            return
        for name, field in type(value).model_fields.items():
            if name in value.model_fields_set:
                wire = field.alias or name
                yield from beyond(getattr(value, name), f"{pointer}/{escape(wire)}")
        for key in sorted(value.model_extra or {}):
            if key != "_meta":
                yield f"{pointer}/{escape(key)}: a field the schema does not name"
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from beyond(item, f"{pointer}/{index}")


def replay(path: Path) -> Json:
    protocol = f"v{negotiated(path)}"
    editions = [Edition(protocol, False), Edition(protocol, True)]
    widest = editions[-1]
    table = importlib.import_module(f"acp_protocol.{protocol}.unstable.state").STATE_TABLE
    state = ClientState(table)
    report: Json = {"protocol": protocol, "problems": [], "dropped": [], "extensions": []}
    report["unknown"] = []
    found_beyond: dict[str, set[str]] = {e.name: set() for e in editions}
    asked: dict[str, tuple[str, Any]] = {}  # request id key → (method, params)
    for index, line, direction, value in frames(path):
        where = {"frame": index, "line": line, "dir": direction}
        if not isinstance(value, dict):
            report["problems"].append(
                {
                    **where,
                    "edition": protocol,
                    "method": None,
                    "pointer": "",
                    "message": "not a JSON-RPC message",
                }
            )
            continue
        method = value.get("method")
        if type(method) is str:
            request = "id" in value
            if request:
                asked[id_key(direction, value["id"])] = (method, value.get("params"))
            if method.startswith("_"):
                report["extensions"].append({**where, "method": method})
                continue
            part, payload = "params", value.get("params", {})
            decode = [(e, e.spec(method, request)) for e in editions]
            types = [(e, None if s is None else s.params_type) for e, s in decode]
        else:
            if "result" in value:
                part, payload = "result", value["result"]
            elif "error" in value:
                part, payload = "error", value["error"]
            else:
                continue
            method, params = asked.get(id_key(other(direction), value.get("id")), (None, None))
            if method is None or method.startswith("_"):
                continue
            decode = [(e, e.spec(method, True)) for e in editions]
            types = [
                (
                    e,
                    (
                        None
                        if s is None
                        else (s.result_type if part == "result" else e.models.Error)
                    ),
                )
                for e, s in decode
            ]
        ok = True
        for edition, wire_type in types:
            if wire_type is None:
                if edition is widest:
                    report["unknown"].append({**where, "method": method})
                ok = ok and edition is not widest
                continue
            decoded, pointer, what = check(wire_type, payload, f"/{part}")
            if pointer is None:
                lost = first_difference(payload, encoded(decoded), f"/{part}")
                if lost is not None:
                    report["dropped"].append(
                        {**where, "edition": edition.name, "method": method, "pointer": lost}
                    )
            if pointer is not None:
                ok = False
                report["problems"].append(
                    {
                        **where,
                        "edition": edition.name,
                        "method": method,
                        "pointer": pointer,
                        "message": what,
                    }
                )
            else:
                found = beyond(decoded, f"/{part}")
                found_beyond[edition.name] |= {f"{direction} {method} {entry}" for entry in found}
        if not ok:
            continue  # a client feeds its state only what decodes
        if "method" in value:
            if direction == "received" or method == table.turn:
                state.apply({"method": method, "params": payload})
        elif direction == "received" and part == "result":
            state.apply({"method": method, "params": params, "result": payload})
    report["state"] = state.snapshot()
    report["beyond"] = {name: sorted(found) for name, found in found_beyond.items()}
    return report


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.field.replay RECORDING.jsonl", file=sys.stderr)
        return 2
    json.dump(replay(Path(argv[0])), sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
