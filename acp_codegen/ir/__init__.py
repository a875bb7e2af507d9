"""The typed intermediate representation: everything a language target renders from.

Targets never see JSON Schema. `acp_codegen.lowering` turns each validated schema document into an
`Edition` of typed definitions and methods; a `Specification` (the IR root) holds every pinned
edition (protocol `v1`/`v2`, channel stable/unstable) of one upstream release.

Three layers, one module each, all re-exported here (`from acp_codegen import ir`; `ir.Struct`):
- **type expressions** (`TypeExpr`): what a field or alias holds: a primitive with its format and
  constraints, a constant, an inline enum, an array, a string-keyed map, a reference to a named
  definition, any JSON value, a nullable type, or an untagged union;
- **definitions** (`Definition`): the named types: `Struct` (fields, `allOf` bases), `Enumeration`
  (open or closed), `TaggedUnion` (tag property, tag → variant map, default variant, catch-all) and
  `Alias`;
- **the protocol surface**: `Method`s (name, kind, handling side, params and result types), `Role`s
  (which side handles which method, as data), `TurnRule`s (ACP's feature-level cancellation) and
  `ErrorCode`s;
- **client-held state** (`StateAnnotation`, `ScopeAnnotation`, per edition): the schema's own
  `x-state` / `x-scope` extensions, one typed node per annotation with its JSON pointer;
- **behaviour** (`Behaviour`, per edition): version negotiation, the prompt lifecycle, the
  capabilities that advertise optional methods, `_meta` policies, the outcome of a cancelled
  request and the cancelling of one target, from a table checked against each schema.

Absence, `null` and a value are kept apart everywhere: a field is `required` or not, and its type is
`Nullable` or not; the two never merge.
"""

from acp_codegen.ir.behaviour import (
    Behaviour,
    CancelOutcome,
    Capability,
    MetaPolicy,
    MetaRule,
    Negotiation,
    PromptAnswer,
    PromptLifecycle,
    PromptRetry,
    Quote,
    ResumeReplay,
    RuleRecord,
    StateUpdates,
    TargetCancel,
    TurnRule,
)
from acp_codegen.ir.definitions import (
    META_WIRE_NAME,
    NO_DEFAULT,
    NO_POLICY,
    Alias,
    Definition,
    Enumeration,
    EnumMember,
    Field,
    FieldPolicy,
    NoDefault,
    Stability,
    Struct,
    TaggedUnion,
    Variant,
    dependencies,
)
from acp_codegen.ir.expressions import (
    NO_CONSTRAINTS,
    AnyValue,
    Array,
    Const,
    Constraints,
    InlineEnum,
    Map,
    Nullable,
    NullType,
    Primitive,
    PrimitiveKind,
    Ref,
    TypeExpr,
    UnionOf,
    referenced_names,
)
from acp_codegen.ir.state import (
    Annotated,
    ScopeAnnotation,
    StateAction,
    StateAnnotation,
    StateEffect,
    StateRule,
)
from acp_codegen.ir.surface import (
    Edition,
    ErrorCode,
    Method,
    MethodKind,
    Role,
    Side,
    Specification,
)

__all__ = [
    "META_WIRE_NAME",
    "NO_CONSTRAINTS",
    "NO_DEFAULT",
    "NO_POLICY",
    "Alias",
    "Annotated",
    "AnyValue",
    "Array",
    "Behaviour",
    "CancelOutcome",
    "Capability",
    "Const",
    "Constraints",
    "Definition",
    "Edition",
    "EnumMember",
    "Enumeration",
    "ErrorCode",
    "Field",
    "FieldPolicy",
    "InlineEnum",
    "Map",
    "MetaPolicy",
    "MetaRule",
    "Method",
    "MethodKind",
    "Negotiation",
    "NoDefault",
    "NullType",
    "Nullable",
    "Primitive",
    "PrimitiveKind",
    "PromptAnswer",
    "PromptLifecycle",
    "PromptRetry",
    "Quote",
    "Ref",
    "ResumeReplay",
    "Role",
    "RuleRecord",
    "ScopeAnnotation",
    "Side",
    "Specification",
    "Stability",
    "StateAction",
    "StateAnnotation",
    "StateEffect",
    "StateRule",
    "StateUpdates",
    "Struct",
    "TaggedUnion",
    "TargetCancel",
    "TurnRule",
    "TypeExpr",
    "UnionOf",
    "Variant",
    "dependencies",
    "referenced_names",
]
