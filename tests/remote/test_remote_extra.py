"""Without the `http` extra the package still imports (the server needs no library), and opening
a remote agent fails with one line that names the extra."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
import tomllib

from tests.paths import ROOT


def test_without_the_http_extra_a_remote_agent_names_the_extra_in_one_line() -> None:
    script = textwrap.dedent("""
        import asyncio, sys
        for name in ("httpx", "httpx_sse", "websockets"):
            sys.modules[name] = None  # as if the extra were not installed
        from acp_protocol.v1.agent import Agent, http_app
        from acp_protocol.v1.client import connect_remote
        from acp_protocol.runtime.transports.remote import MissingExtra, open_remote

        http_app(Agent)
        for url in ("http://127.0.0.1:9/acp", "ws://127.0.0.1:9/acp"):
            try:
                asyncio.run(open_remote(url))
            except MissingExtra as error:
                print(error)
        """)
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert output.splitlines() == [
        "remote agents need the http extra (httpx is missing): "
        "pip install 'acp-protocol-sdk[http]'",
        "remote agents need the http extra (websockets is missing): "
        "pip install 'acp-protocol-sdk[http]'",
    ]


def _extra_modules() -> list[str]:
    """The modules of the `http` extra, from its requirements in the generated pyproject.toml
    (a distribution's name with `_` for `-`; `httpx[http2]` brings `h2`)."""
    project = tomllib.loads((ROOT / "generated/python/pyproject.toml").read_text())["project"]
    modules = []
    for requirement in project["optional-dependencies"]["http"]:
        name, extras = re.match(r"([A-Za-z0-9_.-]+)(?:\[([^]]*)\])?", requirement).groups()  # type: ignore[union-attr]
        modules.append(name.lower().replace("-", "_"))
        if extras is not None and "http2" in extras:
            modules.append("h2")
    return modules


OPEN_WITHOUT = textwrap.dedent("""
    import asyncio, sys
    sys.modules[sys.argv[1]] = None  # as if this module of the extra were not installed
    from acp_protocol.runtime.transports.remote import MissingExtra, open_remote

    async def attempt(url):
        try:
            transport = await open_remote(url)
        except MissingExtra as error:
            return f"MissingExtra: {error}"
        except ConnectionError:
            return "refused"  # the libraries were there: nobody listens on port 9
        await transport.close()
        return "opened"

    for url in ("http://127.0.0.1:9/acp", "ws://127.0.0.1:9/acp"):
        print(asyncio.run(attempt(url)))
    """)


@pytest.mark.parametrize("module", _extra_modules())
def test_every_module_of_the_http_extra_missing_is_a_missing_extra(module: str) -> None:
    """Whichever module of the extra is missing (httpcore included), opening a remote agent that
    needs it raises `MissingExtra` naming that module, never a `ModuleNotFoundError`."""
    done = subprocess.run(
        [sys.executable, "-c", OPEN_WITHOUT, module], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    missing = (
        f"MissingExtra: remote agents need the http extra ({module} is missing): "
        "pip install 'acp-protocol-sdk[http]'"
    )
    outcomes = done.stdout.splitlines()
    assert len(outcomes) == 2
    assert set(outcomes) <= {missing, "opened", "refused"}, outcomes
    if module in ("httpx", "httpcore", "httpx_sse", "h2"):
        assert outcomes[0] == missing  # the Streamable HTTP client needs each of them
    if module == "websockets":
        assert outcomes[1] == missing
