# Copied by acp-codegen from templates/python/runtime/validators.py. Do not edit here:
# edit the source, then run `make generate`.

"""Validating a wire value as a generated type: a strict fast path, the lenient rules on failure.

Layer: typed layer.

Every generated model runs a Python wrap validator (`ProtocolModel._decode_leniently`, the schema's
`x-deserialize-*` rules) and every open union a Python discriminator (`OpenDiscriminator`): about
half of the cost of validating a `session/update`, spent on messages that need neither. So each
type gets two validators, built on first use from the same pydantic core schema:

- **fast**: the core schema with those Python hooks taken out: wrap validators removed (except on
  models with `x-deserialize-default-on-null` fields, whose null replacement changes a valid
  result, and anywhere below a plain union, where a hook can change which variant is chosen) and
  open discriminators replaced by the plain tag lookup, all in Rust;
- **lenient**: the type's own validator, hooks included.

A value the fast validator accepts gets the very result the lenient one gives (the hooks only act
on a validation error, an unknown tag or a default-on-null field); anything it rejects is
validated again by the lenient one, whose result or error is the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator

from .model import OpenDiscriminator, ProtocolModel

_VALIDATORS: dict[Any, Callable[[Any], Any]] = {}
_LENIENT_HOOK = "_decode_leniently"


def validator_for(wire_type: Any) -> Callable[[Any], Any]:
    """The validating constructor of `wire_type` (a model class, or a type alias such as a union)
    from a JSON value. Built on first use and cached."""
    validate = _VALIDATORS.get(wire_type)
    if validate is None:
        validate = _build(wire_type)
        _VALIDATORS[wire_type] = validate
    return validate


def _build(wire_type: Any) -> Callable[[Any], Any]:
    lenient: Callable[[Any], Any]
    if isinstance(wire_type, type) and issubclass(wire_type, BaseModel):
        wire_type.model_rebuild()  # deferred at import (`defer_build`): build it now
        lenient = wire_type.model_validate
        core_schema = wire_type.__pydantic_core_schema__
    else:
        adapter = TypeAdapter(wire_type)
        lenient = adapter.validate_python
        core_schema = adapter.core_schema
    fast = SchemaValidator(_without_python_hooks(core_schema)).validate_python

    def validate(value: Any) -> Any:
        try:
            return fast(value)
        except ValidationError:
            return lenient(value)

    return validate


_LENIENT_REF = "#lenient"
"""Suffix of the untouched copy of each definition, used under plain unions."""


def _without_python_hooks(node: Any, strip: bool = True) -> Any:
    """A copy of core schema `node` without our Python hooks (see the module docstring).

    Below a plain (smart) union nothing is stripped: there a hook can make one variant valid that
    strict validation rejects, and the union would pick another variant. So the choices of a
    plain union point at untouched copies of the definitions (refs ending in `_LENIENT_REF`).
    """
    if isinstance(node, list | tuple):
        return type(node)(_without_python_hooks(item, strip) for item in node)
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "definitions":
        definitions = node["definitions"]
        return {
            **node,
            "schema": _without_python_hooks(node["schema"], strip),
            "definitions": [_without_python_hooks(d, True) for d in definitions]
            + [_without_python_hooks(d, False) for d in definitions],
        }
    if (
        strip
        and kind == "function-wrap"
        and _is_removable_lenient_hook(node["function"]["function"])
    ):
        inner = _without_python_hooks(node["schema"], strip)
        if "ref" in node:  # definitions point at the wrapper's ref: the model inherits it
            inner = {**inner, "ref": node["ref"]}
        return inner
    inner_strip = strip and kind != "union"
    copy = {
        key: (
            value
            if key in ("cls", "function", "metadata")
            else _without_python_hooks(value, inner_strip)
        )
        for key, value in node.items()
    }
    if not strip:
        if "ref" in copy:
            copy["ref"] = copy["ref"] + _LENIENT_REF
        if kind == "definition-ref":
            copy["schema_ref"] = copy["schema_ref"] + _LENIENT_REF
    elif kind == "tagged-union" and isinstance(node["discriminator"], OpenDiscriminator):
        copy["discriminator"] = node["discriminator"].wire_name
    return copy


def _is_removable_lenient_hook(function: Any) -> bool:
    owner = getattr(function, "__self__", None)
    return (
        getattr(function, "__name__", None) == _LENIENT_HOOK
        and isinstance(owner, type)
        and issubclass(owner, ProtocolModel)
        and not owner.__acp_default_on_null__
    )
