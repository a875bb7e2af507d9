# Copied by acp-codegen from templates/python/runtime/json_codec.py. Do not edit here:
# edit the source, then run `make generate`.

"""JSON encoding of frames: orjson when it is installed, the standard library otherwise.

Layer: dispatcher.

Both paths produce one line of compact UTF-8 JSON without a trailing newline. Values that are not
plain JSON (a generated model, anything with a `to_wire()` method) are encoded through `to_wire()`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

try:  # orjson is optional: the vendored package only requires pydantic.
    import orjson
except ImportError:  # pragma: no cover - exercised by the no-orjson test in a subprocess
    orjson = None  # type: ignore[assignment]

JSON_IMPLEMENTATION = "orjson" if orjson is not None else "json"
"""Which library this process uses for frames."""

DecodeError = ValueError
"""What `decode` raises on bytes that are not one JSON value (orjson's error is a ValueError)."""


def _to_wire(value: Any) -> Any:
    to_wire = getattr(value, "to_wire", None)
    if to_wire is None:
        raise TypeError(f"{type(value).__name__} is not JSON serializable")
    return to_wire()


decode: Callable[[bytes], Any]
"""One JSON value from `data`; raises `DecodeError` (a ValueError) on anything else."""

if orjson is not None:
    _orjson_dumps = orjson.dumps
    decode = orjson.loads  # itself, not a wrapper: one call less per message read

    def encode(value: Any) -> bytes:
        """`value` as compact UTF-8 JSON."""
        return _orjson_dumps(value, default=_to_wire)

else:  # pragma: no cover - exercised by the no-orjson test in a subprocess
    _decoder = json.JSONDecoder()
    _encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_to_wire)

    def _decode_with_json(data: bytes) -> Any:
        try:
            return _decoder.decode(data.decode("utf-8"))
        except RecursionError as error:
            raise DecodeError("JSON nested too deeply") from error

    decode = _decode_with_json

    def encode(value: Any) -> bytes:
        """`value` as compact UTF-8 JSON."""
        return _encoder.encode(value).encode("utf-8")
