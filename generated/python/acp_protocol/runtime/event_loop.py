# Copied by acp-codegen from templates/python/runtime/event_loop.py. Do not edit here:
# edit the source, then run `make generate`.

"""Running an agent or a client: `run(main)` is `asyncio.run(main)` on the fastest loop at hand.

Layer: entry points (above the typed layer; the dispatcher works on any asyncio loop).

uvloop is used when it is installed (the `speed` extra: `pip install "acp-protocol-sdk[speed]"`),
unless `event_loop="asyncio"` or the environment says `ACP_EVENT_LOOP=asyncio`. Over stdio each
round trip pays two process wake-ups, and libuv wakes faster than asyncio's selector loop
(docs/benchmarks.md, the two-process rows).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

ENVIRONMENT = "ACP_EVENT_LOOP"
"""`auto` (the default), `uvloop` (required) or `asyncio` (the opt-out)."""
CHOICES = ("auto", "uvloop", "asyncio")


def run(main: Coroutine[Any, Any, T], *, event_loop: str | None = None) -> T:
    """Run `main` to completion on uvloop when available, else on asyncio's default loop."""
    choice = event_loop or os.environ.get(ENVIRONMENT) or "auto"
    if choice not in CHOICES:
        main.close()
        raise ValueError(f"{ENVIRONMENT}={choice!r}: choose one of {', '.join(CHOICES)}")
    if choice != "asyncio":
        try:
            import uvloop
        except ImportError:
            if choice == "uvloop":
                main.close()
                raise RuntimeError(
                    "uvloop is not installed: pip install 'acp-protocol-sdk[speed]'"
                ) from None
        else:
            return uvloop.run(main)
    return asyncio.run(main)


def loop_name() -> str:
    """Which loop runs the current task: `uvloop` or `asyncio`."""
    loop = asyncio.get_running_loop()
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"
