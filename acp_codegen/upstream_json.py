"""Upstream's layout of a JSON schema: prettier 3's JSON style with its defaults, as the
protocol's repository publishes its schemas (an empty .prettierrc). `acp-codegen update-schema
--crate` lays the crate program's serde_json output out this way (schema_crate), so a pinned
schema is byte for byte what upstream publishes for the same version."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from acp_codegen.problems import GenerationError

WIDTH = 80
"""prettier's default print width, which upstream's formatting uses (an empty .prettierrc)."""


class _Number(str):
    """A JSON number as written: the layout keeps its text (normalized as prettier does)."""


def upstream_json(text: str) -> str:
    """`text` (JSON, as serde_json's pretty printer writes it) laid out as upstream publishes
    its schemas: prettier 3 with its defaults, over a source whose every non-empty object spans
    lines. Objects stay one member a line; an array goes on one line when it fits in 80 columns
    (with the comma after it) and holds no non-empty object, else one element a line (numbers
    filling lines); two-space indent; a newline at the end. Key order is kept."""
    try:
        value = json.loads(text, parse_int=_Number, parse_float=_Number, parse_constant=_refuse)
    except ValueError as exc:
        raise GenerationError(f"the schema program printed no JSON ({exc})") from exc
    out: list[str] = []
    _layout(value, 0, 0, 0, out)
    out.append("\n")
    return "".join(out)


def _refuse(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _layout(value: Any, indent: int, column: int, tail: int, out: list[str]) -> None:
    """Append `value`, which starts at `column` and is followed by `tail` columns on its line."""
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = indent + 2
        out.append("{")
        for index, (key, member) in enumerate(value.items()):
            label = _string(key) + ": "
            out.append("\n" + " " * inner + label)
            last = index == len(value) - 1
            _layout(member, inner, inner + _width(label), 0 if last else 1, out)
            if not last:
                out.append(",")
        out.append("\n" + " " * indent + "}")
    elif isinstance(value, list):
        _layout_array(value, indent, column, tail, out)
    else:
        out.append(_scalar(value))


def _layout_array(items: list[Any], indent: int, column: int, tail: int, out: list[str]) -> None:
    if not items:
        out.append("[]")
        return
    flat = _flat(items)
    if flat is not None and column + _width(flat) + tail <= WIDTH:
        out.append(flat)
        return
    inner = indent + 2
    out.append("[\n" + " " * inner)
    if len(items) > 1 and all(_is_number(item) for item in items):
        _fill([_scalar(item) for item in items], inner, out)
    else:
        for index, item in enumerate(items):
            last = index == len(items) - 1
            _layout(item, inner, inner, 0 if last else 1, out)
            if not last:
                out.append(",\n" + " " * inner)
    out.append("\n" + " " * indent + "]")


def _fill(texts: list[str], indent: int, out: list[str]) -> None:
    """prettier's `fill`: each number with its comma, the next one on the same line when both
    fit from where the first starts."""
    parts = [text + ("," if index < len(texts) - 1 else "") for index, text in enumerate(texts)]
    column = indent
    for index, part in enumerate(parts):
        out.append(part)
        if index == len(parts) - 1:
            break
        if column + _width(part) + 1 + _width(parts[index + 1]) <= WIDTH:
            out.append(" ")
            column += _width(part) + 1
        else:
            out.append("\n" + " " * indent)
            column = indent


def _flat(value: Any) -> str | None:
    """`value` on one line, or None when prettier always breaks it: it holds a non-empty object
    (objects that span lines in the source stay so), or it is an array of two or more arrays
    of two or more elements each (prettier's matrix rule)."""
    if isinstance(value, dict):
        return "{}" if not value else None
    if isinstance(value, list):
        if len(value) > 1 and all(isinstance(v, list) and len(v) > 1 for v in value):
            return None
        parts = [_flat(item) for item in value]
        if any(part is None for part in parts):
            return None
        return "[" + ", ".join(part for part in parts if part is not None) + "]"
    return _scalar(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, _Number)


def _scalar(value: Any) -> str:
    if isinstance(value, _Number):
        return _number(str(value))
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise GenerationError(f"unexpected JSON value {value!r}")


def _string(text: str) -> str:
    """A JSON string as serde_json writes it (the escapes it needs, UTF-8 kept)."""
    return json.dumps(text, ensure_ascii=False)


def _number(text: str) -> str:
    """prettier's number normalization: lower case, no `+` or leading zeros in the exponent, no
    `e0`, a digit before the point, no trailing zeros after it, no trailing point."""
    text = text.lower()
    text = re.sub(r"^([+-]?[\d.]+e)(?:\+|(-))?0*(\d)", r"\1\2\3", text)
    text = re.sub(r"^([+-]?[\d.]+)e[+-]?0+$", r"\1", text)
    text = re.sub(r"^([+-])?\.", r"\g<1>0.", text)
    text = re.sub(r"(\.\d+?)0+(?=e|$)", r"\1", text)
    return re.sub(r"\.(?=e|$)", "", text)


def _width(text: str) -> int:
    """Columns `text` takes as prettier counts them: wide and full-width characters two,
    control and combining characters none."""
    if text.isascii():
        return len(text)
    width = 0
    for character in text:
        code = ord(character)
        if code <= 0x1F or 0x7F <= code <= 0x9F or 0x300 <= code <= 0x36F:
            continue
        width += 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1
    return width
