"""Files as stdio: a thread that copies between the file and a pipe.

Layer: transport. asyncio reads and writes pipes, sockets and terminals only ("Pipe transport is
only for pipes, sockets and character devices"), but an agent is also run as `agent <
requests.ndjson > answers.ndjson` (recorded sessions, scripted checks), or with `/dev/null` for
stdin or stdout (a daemon, cron, `nohup`): a character device that epoll refuses (`EPERM`; asyncio
then never reads, uvloop aborts). A descriptor that is not a pipe, a socket or a terminal (a
regular file, `/dev/null`) given for stdin or stdout is put behind a pipe: a thread copies the
file into the pipe (the reading side), or the pipe into the file (the writing side), and the
transport reads or writes the pipe as usual. The writing side's thread is joined when the
interpreter exits, so everything written is in the file by then.
"""

from __future__ import annotations

import atexit
import os
import stat
import threading

_CHUNK = 256 * 1024


def needs_pump(fd: int) -> bool:
    """Whether `fd` is not one an event loop can watch (a pipe, a socket or a terminal)."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return False
    return not (stat.S_ISCHR(mode) and os.isatty(fd))


def reading_pipe(file_fd: int) -> int:
    """A pipe's read end that yields what `file_fd` holds, then its end (`file_fd` is closed)."""
    read_end, write_end = os.pipe()
    threading.Thread(
        target=_copy, args=(file_fd, write_end), name="acp-stdin-file", daemon=True
    ).start()
    return read_end


def writing_pipe(file_fd: int) -> int:
    """A pipe's write end whose bytes go to `file_fd`; closing it ends the copy (then `file_fd` is
    closed). The copy is waited for at interpreter exit (5 s at most)."""
    read_end, write_end = os.pipe()
    thread = threading.Thread(
        target=_copy, args=(read_end, file_fd), name="acp-stdout-file", daemon=True
    )
    thread.start()
    atexit.register(thread.join, 5.0)
    return write_end


def _copy(source: int, target: int) -> None:
    try:
        while chunk := os.read(source, _CHUNK):
            view = memoryview(chunk)
            while view:
                view = view[os.write(target, view) :]
    except OSError:
        pass  # the other side is gone (the connection closed its pipe end early)
    finally:
        os.close(source)
        os.close(target)
