# Copied by acp-codegen from templates/python/runtime/model.py. Do not edit here:
# edit the source, then run `make generate`.

"""Base class of every generated ACP model, and the open-union discriminator.

Layer: typed layer (the base of every generated model).

What the base adds to plain pydantic:
- `_meta` and camelCase wire names are aliases; Python attributes are snake_case and either name
  populates a field.
- Unknown fields are kept (`extra="allow"`) so a message from a newer peer round-trips intact.
- Absent, `null` and a value stay three different things: dump with `exclude_unset=True`
  (`to_wire`) and an explicit `null` is written back while an absent field stays absent.
- A field holding one literal (a union's tag) defaults to it, so `ContentBlockText(text="hi")`
  needs no `type="text"`, and is always written: a model built in Python counts its tags as given.
- The schema's lenient-decoding annotations, read from each field's metadata:
  `x-deserialize-default-on-error` (a bad value is dropped, the message kept),
  `x-deserialize-skip-invalid-items` (bad list items are dropped, the rest kept) and
  `x-deserialize-default-on-null` (`null` means "use the default").
"""

# No `from __future__ import annotations` here: pydantic evaluates the annotations of every class
# in a model's MRO, and string ones (this base's ClassVars) cost a compile and an eval per
# generated subclass at import, about 20 ms for the 190 models of v1.
import enum
from collections.abc import Callable
from typing import Any, ClassVar, Final, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticUndefined

UNKNOWN_VARIANT = "__unknown_variant__"
"""The tag an open union gives a variant whose discriminator value it does not know."""
DEFAULT_VARIANT = "__default_variant__"
"""The tag of a union's default variant: an object without the tag property (the v1 `agent`
auth method, which the schema describes as the one used "when no `type` is present")."""

_DEFAULT_ON_ERROR = "x-deserialize-default-on-error"
_SKIP_INVALID_ITEMS = "x-deserialize-skip-invalid-items"
_DEFAULT_ON_NULL = "x-deserialize-default-on-null"


class Absent(enum.Enum):
    """The type of `ABSENT`: an argument of a helper constructor (`acp_protocol.<v>.helpers`)
    that is left out of the message, where `None` is sent as `null`."""

    ABSENT = "absent"

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = Absent.ABSENT


def present(**fields: Any) -> dict[str, Any]:
    """The keyword arguments given, without those left `ABSENT`."""
    return {name: value for name, value in fields.items() if value is not ABSENT}


class ProtocolModel(BaseModel):
    """Base of every generated model."""

    model_config = ConfigDict(
        populate_by_name=True,
        extra="allow",
        # Core schemas are built on first use, not at import: importing the models module of
        # 200+ classes stays cheap.
        defer_build=True,
    )

    # Wire keys (aliases and attribute names) per lenient-decoding rule, filled per subclass.
    __acp_default_on_error__: ClassVar[frozenset[str]] = frozenset()
    __acp_skip_invalid_items__: ClassVar[frozenset[str]] = frozenset()
    __acp_default_on_null__: ClassVar[dict[str, Callable[[], Any]]] = {}
    # Fields whose one possible value is their default (tags), filled per subclass.
    __acp_tags__: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        on_error: set[str] = set()
        skip_items: set[str] = set()
        on_null: dict[str, Callable[[], Any]] = {}
        tags: set[str] = set()
        for name, field in cls.model_fields.items():
            if get_origin(field.annotation) is Literal and (field.default,) == get_args(
                field.annotation
            ):
                tags.add(name)
            extra = field.json_schema_extra
            if not isinstance(extra, dict):
                continue
            keys = {name, field.alias or name}
            if extra.get(_DEFAULT_ON_ERROR):
                on_error |= keys
            if extra.get(_SKIP_INVALID_ITEMS):
                skip_items |= keys
            if extra.get(_DEFAULT_ON_NULL):
                factory = _default_factory(field.default, field.default_factory, field.annotation)
                on_null |= dict.fromkeys(keys, factory)
        cls.__acp_default_on_error__ = frozenset(on_error)
        cls.__acp_skip_invalid_items__ = frozenset(skip_items)
        cls.__acp_default_on_null__ = on_null
        cls.__acp_tags__ = frozenset(tags)

    @model_validator(mode="wrap")
    @classmethod
    def _decode_leniently(cls, data: Any, handler: Callable[[Any], Any]) -> Any:
        if cls.__acp_default_on_null__ and isinstance(data, dict):
            data = _replace_nulls(data, cls.__acp_default_on_null__)
        try:
            model = handler(data)
        except ValidationError as exc:
            repaired = _repair(
                data, exc, cls.__acp_default_on_error__, cls.__acp_skip_invalid_items__
            )
            if repaired is None:
                raise
            model = handler(repaired)
        if cls.__acp_tags__:
            # A defaulted tag is still part of the message: `to_wire` (`exclude_unset`) writes
            # it. (Here rather than in `__init__`: a custom `__init__` makes pydantic call it for
            # every nested model it validates, a third of the notify rate.)
            model.__pydantic_fields_set__.update(cls.__acp_tags__)
        return model

    def to_wire(self) -> dict[str, Any]:
        """The JSON object this model stands for: wire names, explicit nulls kept."""
        # `model_dump(mode="json", by_alias=True, exclude_unset=True)` without its Python wrapper,
        # which cost a fifth of writing a `session/update` (3.3 → 2.7 µs).
        wire: dict[str, Any] = self.__pydantic_serializer__.to_python(
            self, mode="json", by_alias=True, exclude_unset=True
        )
        return wire


def _default_factory(default: Any, factory: Any, annotation: Any) -> Callable[[], Any]:
    if callable(factory):
        return factory  # type: ignore[no-any-return]
    if default is not PydanticUndefined and default is not None:
        return lambda: default
    origin = getattr(annotation, "__origin__", annotation)
    return dict if origin is dict else list


def _replace_nulls(data: dict[str, Any], on_null: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    if not any(data.get(key, ...) is None for key in on_null):
        return data
    return {k: (on_null[k]() if v is None and k in on_null else v) for k, v in data.items()}


def _repair(
    data: Any, exc: ValidationError, on_error: frozenset[str], skip_items: frozenset[str]
) -> dict[str, Any] | None:
    """The input minus what the lenient rules allow to drop; None when an error is elsewhere."""
    if not isinstance(data, dict) or not (on_error or skip_items):
        return None
    drop_keys: set[str] = set()
    drop_items: dict[str, set[int]] = {}
    for error in exc.errors():
        loc = error["loc"]
        key = loc[0] if loc else None
        if not isinstance(key, str):
            return None
        if key in skip_items and len(loc) > 1 and isinstance(loc[1], int):
            drop_items.setdefault(key, set()).add(loc[1])
        elif key in on_error:
            drop_keys.add(key)
        else:
            return None
    repaired = {k: v for k, v in data.items() if k not in drop_keys}
    for key, indexes in drop_items.items():
        if key in repaired and isinstance(repaired[key], list):
            repaired[key] = [item for i, item in enumerate(repaired[key]) if i not in indexes]
    return repaired


class OpenDiscriminator:
    """A discriminator for a union that must not fail on a variant it does not know.

    A tag in `known` selects its variant; any other string selects the union's catch-all
    `Unknown…` model (tag `UNKNOWN_VARIANT`), which keeps every field. A missing or `null` tag
    selects the union's default variant when it has one (`DEFAULT_VARIANT`: v1's untagged `agent`
    auth method, the unstable `IdleStateUpdate` without a stop reason); otherwise it is an error,
    as is a non-string tag (`None` makes pydantic report it). `wire_name` is read by the strict
    fast path (`validators.py`), which looks the tag up in Rust and leaves unknown tags to this.
    """

    __slots__ = ("attribute", "has_default", "known", "wire_name")
    __name__ = "open_discriminator"  # pydantic-core names a callable discriminator in errors

    def __init__(
        self, wire_name: str, attribute: str, known: frozenset[str], has_default: bool
    ) -> None:
        self.wire_name = wire_name
        self.attribute = attribute
        self.known = known
        self.has_default = has_default

    def __call__(self, value: Any) -> str | None:
        if isinstance(value, dict):
            tag = value.get(self.wire_name, _ABSENT)
        else:
            tag = getattr(value, self.attribute, _ABSENT)
        if (tag is _ABSENT or tag is None) and self.has_default:
            return DEFAULT_VARIANT
        if not isinstance(tag, str):
            return None
        return tag if tag in self.known else UNKNOWN_VARIANT


_ABSENT = object()


def open_discriminator(
    wire_name: str, attribute: str, known: frozenset[str], *, has_default: bool = False
) -> Callable[[Any], str | None]:
    """The discriminator of an open union (see `OpenDiscriminator`)."""
    return OpenDiscriminator(wire_name, attribute, known, has_default)
