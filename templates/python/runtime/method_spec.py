"""The entry type of the generated method tables (`acp_protocol.v1.methods`).

Layer: typed layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Side = Literal["agent", "client", "both", "protocol", "proxy"]
Kind = Literal["request", "notification"]
Stability = Literal["stable", "unstable"]


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """One JSON-RPC method: its name, the side that handles it, and its wire types.

    `params_type`/`result_type` are model classes or type aliases of the matching models module;
    validate with `pydantic.TypeAdapter(spec.params_type)`. `result_type` is None for notifications.
    """

    name: str
    side: Side
    kind: Kind
    params_type: Any
    result_type: Any
    stability: Stability
    handler_name: str
