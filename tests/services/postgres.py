"""PostgreSQL for the tests: Debian's server binaries, one throwaway server per test run.

`python -m tests.services.postgres install` (run by `make test`): installs Debian's
`postgresql` package where its binaries are missing and this is root on a machine with
apt-get; anywhere else it prints one line naming what to install. `start()` runs `initdb`
into a new temporary folder (its owner the `postgres` user when we are root: the server
refuses to run as root) and `pg_ctl start` on a free loopback port, its unix socket in that
folder, durability off unless `durable` (a test never survives a crash of the server, only of
its clients); `Server.stop()` stops it (immediate: the data is thrown away) and removes the
folder. Every step is bounded in time.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.services import free_port

INSTALL = (
    "PostgreSQL's server is not installed: install Debian's `postgresql` package"
    " (apt-get install postgresql), or put initdb and pg_ctl on PATH"
)
TOOLS = ("initdb", "pg_ctl", "postgres")
USER = "acp"


class Unavailable(Exception):
    """No server can be started here: the message is the one line to show."""


def binaries() -> Path | None:
    """The folder of initdb, pg_ctl and postgres: Debian's newest version, else PATH."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda folder: int(folder.parent.name) if folder.parent.name.isdigit() else 0,
    )
    for folder in reversed(versions):
        if all((folder / tool).exists() for tool in TOOLS):
            return folder
    found = [shutil.which(tool) for tool in TOOLS]
    if found[0] is not None and all(found):
        return Path(os.path.realpath(found[0])).parent
    return None


def install() -> int:
    """Install Debian's `postgresql` where missing; 0 when it is there afterwards. One line
    otherwise (the tests that need it then say the same and are skipped)."""
    if binaries() is not None:
        return 0
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print(f"make test: {INSTALL}", file=sys.stderr)
        return 0
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = (
        (["apt-get", "update", "-qq"], 300),
        (["apt-get", "install", "-y", "-qq", "--no-install-recommends", "postgresql"], 600),
    )
    try:
        for command, limit in steps:
            print(f"make test: {' '.join(command)}", file=sys.stderr)
            subprocess.run(command, check=True, timeout=limit, stdout=subprocess.DEVNULL, env=env)
    except (subprocess.SubprocessError, OSError) as error:
        print(f"make test: installing postgresql failed ({error}); {INSTALL}", file=sys.stderr)
    return 0


@dataclass
class Server:
    """A running server: `dsn` to connect, `stop()` when done."""

    folder: Path
    bin: Path
    port: int
    user: str | None

    @property
    def dsn(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            _run(self, "pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def start(*, durable: bool = False) -> Server:
    """A new server on a free loopback port; `Unavailable` (one line) when none can start.
    `durable`: fsync, synchronous_commit and full_page_writes left on, as in production (the
    scale rows of `make bench`); off otherwise."""
    folder_of_binaries = binaries()
    if folder_of_binaries is None:
        raise Unavailable(INSTALL)
    user = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres").pw_name
        except KeyError:
            raise Unavailable(
                "PostgreSQL refuses to run as root and there is no `postgres` user:"
                " install Debian's `postgresql` package"
            ) from None
    # Directly in the temporary folder: pytest's own is private to root, the server's user
    # must reach it; short, so the unix socket's path fits.
    folder = Path(tempfile.mkdtemp(prefix="acp-pg-"))
    if user is not None:
        record = pwd.getpwnam(user)
        os.chown(folder, record.pw_uid, record.pw_gid)
    server = Server(folder, folder_of_binaries, free_port(), user)
    try:
        _run(server, "initdb", "-D", str(folder / "data"), "-U", USER, "-A", "trust",
             "-E", "UTF8", "--locale=C", "--no-sync")  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -p {server.port} -k {folder} -c max_connections=200"
        )
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        _run(server, "pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "server.log"),
             "-o", options, "-w", "-t", "60", "start")  # fmt: skip
    except (subprocess.SubprocessError, OSError) as error:
        log = folder / "server.log"
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
        server.stop()
        raise Unavailable(f"PostgreSQL did not start: {error} {' '.join(tail)}".strip()) from None
    return server


def _run(server: Server, tool: str, *arguments: str) -> None:
    subprocess.run(
        [str(server.bin / tool), *arguments],
        check=True,
        timeout=120,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        user=server.user,
        cwd=server.folder,
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        sys.exit("usage: python -m tests.services.postgres install")
    sys.exit(install())
