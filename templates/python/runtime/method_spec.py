"""The entry type of the generated method tables (`acp_protocol.v1.methods`).

Layer: typed layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

Side = Literal["agent", "client", "both", "protocol", "proxy"]
Kind = Literal["request", "notification"]
Stability = Literal["stable", "unstable"]


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """One JSON-RPC method: its name, the side that handles it, and its wire types.

    `params`/`result` name a model class or type alias of the edition's `models` (`result` is None
    for notifications); `params_type`/`result_type` look it up there, which builds the models of
    its group the first time. Validate with `pydantic.TypeAdapter(spec.params_type)`.
    """

    name: str
    side: Side
    kind: Kind
    params: str
    result: str | None
    stability: Stability
    handler_name: str
    models: ModuleType = field(repr=False, compare=False)

    @property
    def params_type(self) -> Any:
        return getattr(self.models, self.params)

    @property
    def result_type(self) -> Any:
        return None if self.result is None else getattr(self.models, self.result)
