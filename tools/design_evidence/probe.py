"""What datamodel-code-generator's models do with real messages (layer: evidence, run under the
`.venv-design` interpreter, never ours: it imports pydantic and the generated module only).

`python probe.py MODULE.py PROTOCOL` imports one generated module and prints one JSON object:
- `fields`: its model fields by (required, accepts `null`): how absent and `null` are spelled;
- `session_info`: a `session_info_update` with `"title": null` and one without `title`, read and
  written back as the official Python SDK writes (`exclude_none`) and as `exclude_unset` would;
- `union`: the class `SessionUpdate` reads a valid `agent_message_chunk` as, one without its
  `content`, and a tag the schema does not know (or how many errors refuse it).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
import typing
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError


def load(path: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("dmcg_models", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dmcg_models"] = module
    spec.loader.exec_module(module)
    return module


def accepts_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None):
        return True
    value = getattr(annotation, "__value__", None)  # a TypeAliasType
    if value is not None:
        return accepts_none(value)
    if typing.get_origin(annotation) is typing.Annotated:
        return accepts_none(typing.get_args(annotation)[0])
    return any(accepts_none(arg) for arg in typing.get_args(annotation))


def fields(module: types.ModuleType) -> dict[str, int]:
    """Every field of every model class defined in the module (inherited ones counted once, on
    the class that declares them)."""
    counts = {"required": 0, "required_nullable": 0, "optional_nullable": 0, "optional": 0}
    for value in vars(module).values():
        if not (isinstance(value, type) and issubclass(value, BaseModel)):
            continue
        if value.__module__ != module.__name__:
            continue
        own = value.__annotations__ if "__annotations__" in vars(value) else {}
        for name, info in value.model_fields.items():
            if name not in own:
                continue
            nullable = accepts_none(info.annotation)
            if info.is_required():
                counts["required_nullable" if nullable else "required"] += 1
            else:
                counts["optional_nullable" if nullable else "optional"] += 1
    return counts


def session_info(module: types.ModuleType, protocol: str) -> dict[str, Any]:
    model = module.SessionInfoUpdate
    cleared = model.model_validate({"title": None})
    absent = model.model_validate({})
    return {
        "title_when_null": repr(cleared.title),
        "title_when_absent": repr(absent.title),
        "exclude_none": [
            cleared.model_dump(by_alias=True, exclude_none=True),
            absent.model_dump(by_alias=True, exclude_none=True),
        ],
        "exclude_unset": [
            cleared.model_dump(by_alias=True, exclude_unset=True),
            absent.model_dump(by_alias=True, exclude_unset=True),
        ],
    }


SAMPLES: dict[str, dict[str, Any]] = {
    "valid": {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m1",
        "content": {"type": "text", "text": "hi"},
    },
    "missing_content": {"sessionUpdate": "agent_message_chunk", "messageId": "m1"},
    "unknown_tag": {"sessionUpdate": "future_update", "x": 1},
}
"""The `SessionUpdate`s every probe reads (ours too: tools/design_evidence/ours.py)."""


def outcome(validate: Any, sample: dict[str, Any]) -> str:
    """The class a sample is read as, or `N errors` when it is refused."""
    try:
        return type(validate(sample)).__name__
    except ValidationError as error:
        return f"{error.error_count()} errors"


def union(module: types.ModuleType) -> dict[str, str]:
    adapter: TypeAdapter[Any] = TypeAdapter(module.SessionUpdate)
    return {name: outcome(adapter.validate_python, sample) for name, sample in SAMPLES.items()}


def main(path: str, protocol: str) -> None:
    module = load(path)
    print(
        json.dumps(
            {
                "fields": fields(module),
                "session_info": session_info(module, protocol),
                "union": union(module),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
