"""nginx for the tests: Debian's package, one throwaway server per use, in front of agent servers.

`python -m tests.services.nginx install` (run by `make services`): installs Debian's `nginx`
package where the binary is missing and this is root on a machine with apt-get (the package's
own service is kept from starting: a policy-rc.d is in place during the install only); anywhere
else it prints one line naming what to install. `start(backends)` renders the repository's
config, deploy/nginx/acp.conf, into a new temporary folder for the given agent servers (route
name → loopback port), runs `nginx -g 'daemon off;'` on a free loopback port and waits until it
answers; `Proxy.stop()` stops it and removes the folder. Every step is bounded in time.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.paths import ROOT
from tests.services import free_port

TEMPLATE = ROOT / "deploy" / "nginx" / "acp.conf"
INSTALL = "nginx is not installed: install Debian's `nginx` package (apt-get install nginx)"
POLICY = Path("/usr/sbin/policy-rc.d")


class Unavailable(Exception):
    """No nginx can be started here: the message is the one line to show."""


def binary() -> str | None:
    return shutil.which("nginx") or next(
        (str(p) for p in (Path("/usr/sbin/nginx"),) if p.exists()), None
    )


def install() -> int:
    """Install Debian's `nginx` where missing; always 0 (one line when it cannot)."""
    if binary() is not None:
        return 0
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print(f"make test: {INSTALL}", file=sys.stderr)
        return 0
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    ours = not POLICY.exists()
    try:
        if ours:  # "exit 101": invoke-rc.d starts no service while the package installs
            POLICY.write_text("#!/bin/sh\nexit 101\n")
            POLICY.chmod(0o755)
        for command, limit in (
            (["apt-get", "update", "-qq"], 300),
            (["apt-get", "install", "-y", "-qq", "--no-install-recommends", "nginx"], 600),
        ):
            print(f"make test: {' '.join(command)}", file=sys.stderr)
            subprocess.run(command, check=True, timeout=limit, stdout=subprocess.DEVNULL, env=env)
    except (subprocess.SubprocessError, OSError) as error:
        print(f"make test: installing nginx failed ({error}); {INSTALL}", file=sys.stderr)
    finally:
        if ours:
            POLICY.unlink(missing_ok=True)
    return 0


def render(prefix: str, listen: str, backends: Mapping[str, int]) -> str:
    """deploy/nginx/acp.conf for `backends` (route → port on 127.0.0.1)."""
    any_servers = "\n".join(
        f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=30s;"
        for port in backends.values()
    )
    routes = "\n".join(
        f"    upstream acp_{route} {{ server 127.0.0.1:{port}; }}"
        for route, port in backends.items()
    )
    text = TEMPLATE.read_text()
    for name, value in (("PREFIX", prefix), ("LISTEN", listen), ("ANY", any_servers),
                        ("ROUTES", routes)):  # fmt: skip
        text = text.replace(f"@{name}@", value)
    return text


@dataclass
class Proxy:
    """A running nginx: `url(scheme)` of its /acp, `stop()` when done."""

    folder: Path
    port: int
    process: subprocess.Popen[bytes]

    def url(self, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}/acp"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


def start(backends: Mapping[str, int]) -> Proxy:
    """nginx on a free loopback port in front of `backends`; `Unavailable` when it cannot."""
    program = binary()
    if program is None:
        raise Unavailable(INSTALL)
    folder = Path(tempfile.mkdtemp(prefix="acp-nginx-"))
    port = free_port()
    config = folder / "nginx.conf"
    config.write_text(render(str(folder), f"127.0.0.1:{port}", backends))
    command = [program, "-p", str(folder), "-c", str(config), "-g", "daemon off;"]
    checked = subprocess.run([*command[:-2], "-t", "-q"], capture_output=True, timeout=30)
    if checked.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise Unavailable(f"nginx refused its config: {checked.stderr.decode().strip()}")
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    proxy = Proxy(folder, port, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return proxy
        time.sleep(0.02)
    errors = (folder / "error.log").read_text(errors="replace") if process.poll() else ""
    proxy.stop()
    raise Unavailable(f"nginx did not start: {errors.strip()[-300:]}")


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        sys.exit("usage: python -m tests.services.nginx install")
    sys.exit(install())
