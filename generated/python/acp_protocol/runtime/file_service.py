# Copied by acp-codegen from templates/python/runtime/file_service.py. Do not edit here:
# edit the source, then run `make generate`.

"""The client side of `fs/read_text_file` and `fs/write_text_file`, safe against the agent.

Layer: typed layer (a helper a client sets on `Client.file_service`).

An agent is a program the user did not write; what it asks to read or write is checked here
before any byte moves (typed layer helper: set `Client.file_service` and both methods are
answered from it):

- Paths must be absolute (ACP: "All file paths in the protocol MUST be absolute"). Each is resolved,
  symlinks included, and refused unless it lies under one of the allowed roots (by default the
  sessions' `cwd`s, added by `allow()`), with an error that names the roots.
- Only regular files: a FIFO, a device (`/dev/zero`), a directory or `/proc` pseudo-file is
  refused before it is opened, and the file is opened non-blocking and checked again (`fstat`), so
  swapping a FIFO in after the check blocks nothing.
- `line`/`limit` read only the lines they ask for, in bounded chunks; a reply over `max_bytes`
  is refused, not built: memory stays bounded whatever the file.
- All file I/O runs in a worker thread, never on the event loop.
- Writes follow the same rules and are atomic: a temporary file in the target's folder, then a
  rename, so a reader never sees half a file and a failed write leaves the old one intact.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Iterable
from typing import IO

from .errors import INVALID_PARAMS, RpcError

RESOURCE_NOT_FOUND = -32002
"""ACP `ErrorCode`: "A given resource, such as a session or file, was not found"."""
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
_CHUNK = 64 * 1024


class FileAccessError(RpcError):
    """A refused `fs/*` request: `-32602` with the path and the allowed roots in `data`, or
    `-32002` (ACP "Resource not found") for a file that does not exist."""

    default_code = INVALID_PARAMS
    default_message = "File access refused"


class FileService:
    """Reads and writes text files for an agent, only under `roots` (see the module)."""

    def __init__(
        self, roots: Iterable[str | os.PathLike[str]] = (), *, max_bytes: int = DEFAULT_MAX_BYTES
    ):
        self._roots: list[str] = []
        self.max_bytes = max_bytes
        for root in roots:
            self.allow(root)

    @property
    def roots(self) -> tuple[str, ...]:
        return tuple(self._roots)

    def allow(self, root: str | os.PathLike[str]) -> None:
        """Serve files under `root` too (a session's `cwd`: call it on `session/new`)."""
        resolved = os.path.realpath(root)
        if resolved not in self._roots:
            self._roots.append(resolved)

    async def read_text_file(
        self, path: str, line: int | None = None, limit: int | None = None
    ) -> str:
        """The text of `path`, from 1-based `line` and at most `limit` lines."""
        return await asyncio.to_thread(self._read, path, line, limit)

    async def write_text_file(self, path: str, content: str) -> None:
        """Replace `path`'s content atomically (the file may not exist yet; its folder must)."""
        await asyncio.to_thread(self._write, path, content)

    # --- worker-thread side ----------------------------------------------------------------

    def _refuse(self, path: str, reason: str, code: int = INVALID_PARAMS) -> FileAccessError:
        roots = ", ".join(self._roots) or "none"
        # -32002's message begins with the code's title in the schema, "Resource not found", as the
        # official SDKs' `resourceNotFound` errors do: agents match those words (gemini-cli).
        title = "Resource not found: " if code == RESOURCE_NOT_FOUND else ""
        return FileAccessError(
            f"{title}{reason}: {path} (allowed roots: {roots})",
            {"path": path, "roots": list(self._roots), "details": reason},
            code=code,
        )

    def _resolve(self, path: str) -> str:
        if not isinstance(path, str) or not os.path.isabs(path):
            raise self._refuse(str(path), "the path is not absolute")
        resolved = os.path.realpath(path)
        if not any(_within(resolved, root) for root in self._roots):
            raise self._refuse(path, "the path is outside the allowed roots")
        return resolved

    def _read(self, path: str, line: int | None, limit: int | None) -> str:
        if (line is not None and line < 1) or (limit is not None and limit < 0):
            raise self._refuse(path, "`line` must be 1 or more and `limit` 0 or more")
        resolved = self._resolve(path)
        try:
            fd = os.open(resolved, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            raise self._refuse(path, "no such file", RESOURCE_NOT_FOUND) from None
        except OSError as error:
            raise self._refuse(path, f"cannot open the file ({error.strerror})") from None
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise self._refuse(path, "not a regular file")
            data = self._read_lines(file, path, line or 1, limit)
        return data.decode("utf-8", errors="replace")

    def _read_lines(self, file: IO[bytes], path: str, first: int, limit: int | None) -> bytes:
        """Lines `first`… (at most `limit`), never holding more than `max_bytes` + a chunk."""
        for _ in range(first - 1):
            if not _skip_line(file):
                return b""
        parts: list[bytes] = []
        size = 0
        lines = 0
        while limit is None or lines < limit:
            piece = file.readline(_CHUNK)
            if not piece:
                break
            size += len(piece)
            if size > self.max_bytes:
                raise self._refuse(
                    path, f"the reply would exceed {self.max_bytes} bytes; ask for fewer lines"
                )
            parts.append(piece)
            if piece.endswith(b"\n"):
                lines += 1
        return b"".join(parts)

    def _write(self, path: str, content: str) -> None:
        data = content.encode("utf-8")
        if len(data) > self.max_bytes:
            raise self._refuse(path, f"the content exceeds {self.max_bytes} bytes")
        resolved = self._resolve(path)
        folder, name = os.path.split(resolved)
        try:
            existing = os.lstat(resolved)
        except FileNotFoundError:
            existing = None
        except OSError as error:
            raise self._refuse(path, f"cannot inspect the file ({error.strerror})") from None
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            raise self._refuse(path, "not a regular file")
        if not os.path.isdir(folder):
            raise self._refuse(path, "the folder does not exist", RESOURCE_NOT_FOUND)
        import tempfile  # here, not at the top: it costs ~3 ms of every agent's import

        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            if existing is not None:
                os.chmod(temporary, stat.S_IMODE(existing.st_mode))
            os.replace(temporary, resolved)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _skip_line(file: IO[bytes]) -> bool:
    """Read past one line in bounded chunks; False at end of file."""
    while True:
        piece = file.readline(_CHUNK)
        if not piece:
            return False
        if piece.endswith(b"\n"):
            return True
