"""The runtime as vendored code: self-contained, and working without orjson or uvloop."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import acp_protocol.runtime

RUNTIME = Path(acp_protocol.runtime.__file__).parent
ALLOWED_THIRD_PARTY = {"pydantic", "pydantic_core", "orjson", "uvloop"}
HTTP_EXTRA = {
    "http_client.py": {"httpx", "httpx_sse", "httpcore"},
    "ws_client.py": {"websockets"},
    "ws_frames.py": {"websockets"},
    "serve.py": {"uvicorn"},
    "uvicorn_ws.py": {"uvicorn", "websockets"},
    "session_postgres.py": {"psycopg", "psycopg_pool"},
}
"""The modules of the `http` and `postgres` extras and what each imports: only
`transports.remote` imports the client's, when a remote agent is opened (the server needs no
library); `bridge/serve.py` imports uvicorn when `bridge serve` starts; `session_postgres.py`
imports psycopg when a PostgreSQL store is opened."""


def test_runtime_imports_only_the_standard_library_pydantic_and_the_speed_extra() -> None:
    """ "the vendored package stays self-contained: its only required dependency is pydantic,
    with orjson (and uvloop, the `speed` extra) used when installed"."""
    for module in sorted(RUNTIME.rglob("*.py")):
        tree = ast.parse(module.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            foreign = {r for r in roots if r not in sys.stdlib_module_names}
            allowed = ALLOWED_THIRD_PARTY | HTTP_EXTRA.get(module.name, set())
            assert foreign <= allowed, f"{module.relative_to(RUNTIME)} imports {foreign}"


def test_runtime_copy_matches_its_hand_written_source() -> None:
    source = Path(__file__).resolve().parents[2] / "templates" / "python" / "runtime"
    for module in sorted(source.rglob("*.py")):
        relative = module.relative_to(source)
        assert (RUNTIME / relative).read_text().endswith(module.read_text()), relative


def test_round_trip_without_orjson() -> None:
    """The standard-library JSON path gives the same frames."""
    script = textwrap.dedent("""
        import sys
        sys.modules["orjson"] = None  # as if it were not installed
        import asyncio
        from acp_protocol.runtime import Connection, MethodHandlers, memory_pair
        from acp_protocol.runtime.json_codec import JSON_IMPLEMENTATION, decode, encode

        async def echo(params, ctx):
            return params

        async def main():
            a, b = memory_pair()
            async with Connection(a) as left, Connection(b, MethodHandlers({"echo": echo})):
                return await left.request("echo", {"text": "héllo", "n": [1, 2.5, None]})

        assert JSON_IMPLEMENTATION == "json"
        assert encode({"a": "é"}) == '{"a":"é"}'.encode()
        print(asyncio.run(main()))
        try:
            decode(b"[1,")
        except ValueError:
            print("decode error is a ValueError")
        """)
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert output.splitlines() == [
        "{'text': 'héllo', 'n': [1, 2.5, None]}",
        "decode error is a ValueError",
    ]


def test_importing_the_runtime_imports_no_extra() -> None:
    """The extras' libraries are imported where they are used (a remote agent opened, `bridge
    serve` started, a PostgreSQL store opened), never by importing the runtime or an edition."""
    extras = sorted(set().union(*HTTP_EXTRA.values()))
    code = (
        "import sys, acp_protocol.runtime, acp_protocol.v1.agent, acp_protocol.v1.client\n"
        f"print(sorted(m for m in {extras!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
