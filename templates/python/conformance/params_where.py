"""Where invalid params are wrong (layer: case family): each request the agent handles, sent
params its schema refuses (methods.py's `params.invalid.*` checks the -32602), all on one
connection; every -32602 answer names where: a field's name or a JSON pointer to it, in `data`
or in `message`.

Informative: JSON-RPC 2.0 leaves `data` to the server ("A Primitive or Structured value that
contains additional information about the error. This may be omitted."), and ACP says nothing
more. Our runtimes put it there: Python pydantic's error list (`"loc": ["cwd"]`), TypeScript
and Go the JSON pointer (`"/cwd"`). The cases are shared (runner.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .cases import JSON_RPC, Case, Context, Outcome, error_code, failed, passed, skipped
from .data import EditionData, MethodEntry, Quote
from .methods import refused_params
from .steps import initialized

DATA = Quote(
    "data: A Primitive or Structured value that contains additional information about the "
    "error. This may be omitted. The value of this member is defined by the Server (e.g. "
    "detailed error information, nested errors etc.).",
    f"{JSON_RPC} §5.1",
)
WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def cases(edition: EditionData) -> list[Case]:
    if not edition.handled_by("agent", "request"):
        return []
    return [
        Case(
            "params.invalid_names_where",
            "the -32602 answer to params a method's schema refuses names the field (its name or "
            "a JSON pointer, in data or message), for every request the agent serves",
            "informative",
            DATA,
            _names_where,
            shared=True,
        )
    ]


def wrong_fields(ctx: Context, method: MethodEntry, bad: dict[str, Any]) -> set[str]:
    """The fields the refused params are wrong at: the one given, or (for `{}`) the required."""
    if bad:
        return set(bad)
    fields = getattr(getattr(ctx.models, method.params), "model_fields", {})
    return {info.alias or name for name, info in fields.items() if info.is_required()}


def words(value: Any) -> set[str]:
    """Every name-like word in a JSON value's strings and keys (`/cwd` and `["cwd"]` give cwd)."""
    return set(WORD.findall(json.dumps(value, ensure_ascii=False)))


async def _names_where(ctx: Context) -> Outcome:
    await initialized(ctx)
    named: list[str] = []
    unnamed: list[str] = []
    for method in ctx.edition.handled_by("agent", "request"):
        bad = refused_params(ctx, method)
        if bad is None:
            continue
        answer = await ctx.call(method.name, bad)
        if error_code(answer) != -32602:
            continue  # not served (-32601), or params.invalid.<method>'s failure
        error = answer["error"]
        said = words(error.get("data")) | words(error.get("message"))
        fields = wrong_fields(ctx, method, bad)
        if not fields:
            continue  # params of no fixed fields (a union): nothing the answer must name
        if fields & said:
            named.append(f"{method.name} ({', '.join(sorted(fields & said))})")
        else:
            data = json.dumps(error.get("data"))[:120]
            unnamed.append(
                f"{method.name} params {json.dumps(bad)}: none of {', '.join(sorted(fields))} "
                f"named (data {data})"
            )
    if unnamed:
        return failed("; ".join(unnamed))
    if not named:
        return skipped("no request the suite sent refused params to was answered -32602")
    return passed(f"named in {', '.join(named)}")
