"""The bridge's command line: `python -m acp_protocol.bridge serve|connect …` (see `main`).

Layer: transport (the bridge's front end). Every failure is one line on stderr, never a
traceback; stdout belongs to the protocol (`connect`) or stays unused (`serve`).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import shutil
import ssl
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from ..event_loop import run
from ..transports.http_policy import HttpServerOptions
from ..transports.remote import MissingExtra

DESCRIPTION = """\
Bridge ACP agents between stdio and ACP's remote transport (the RFD "Streamable HTTP &
WebSocket", one endpoint: /acp). Frames pass through unchanged, ids byte for byte;
cancellation ($/cancel_request) passes through as a frame."""

SERVE_HELP = """\
Serve a stdio agent (any ACP agent command: ours, codex-acp, claude-agent-acp) over Streamable
HTTP and WebSocket at http://HOST:PORT/acp. Each HTTP connection (each initialize) gets an agent
process of its own, ended with its whole process group when the connection ends (DELETE, a
closed WebSocket, the idle timeout) or the bridge exits (SIGINT, SIGTERM). Binds 127.0.0.1
unless told otherwise; another address needs --token-env (or --no-token)."""

CONNECT_HELP = """\
Be a stdio agent that forwards to the remote agent at URL (http(s)://…/acp: Streamable HTTP;
ws(s)://…/acp: WebSocket), for editors that only spawn stdio agents. At the end of stdin the
answers to the requests already sent are still forwarded (--eof-grace seconds at most), then the
remote connection is ended (DELETE). The remote going away ends the bridge with one line on
stderr and status 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


class _OneLine(logging.Formatter):
    """`prefix: message`, an exception as `: Type: message` on the same line, never a
    traceback."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self._prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            message += f": {type(error).__name__}: {error}"
        lines = message.strip().splitlines() or [""]
        return f"{self._prefix}: {lines[0]}"


def parser(prog: str) -> argparse.ArgumentParser:
    top = _Parser(prog=prog, description=DESCRIPTION)
    commands = top.add_subparsers(dest="command", required=True, metavar="{serve,connect}")
    serve = commands.add_parser(
        "serve",
        help="serve a stdio agent over HTTP and WebSocket",
        description=SERVE_HELP,
        usage="%(prog)s [options] -- AGENT_COMMAND [ARG ...]",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (8000; 0: any free one)")
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an Origin (scheme://host[:port]) whose web pages may connect; repeatable "
        "(without it, any request carrying an Origin is refused 403)",
    )
    serve.add_argument(
        "--token-env",
        metavar="VAR",
        help="require 'Authorization: Bearer <token>', the token read from this environment "
        "variable (not from the command line, which other users can see)",
    )
    serve.add_argument(
        "--no-token",
        action="store_true",
        help="serve a non-loopback --host without a token (anyone who reaches the port runs "
        "the agent)",
    )
    limits = HttpServerOptions()
    serve.add_argument("--max-connections", type=int, default=limits.max_connections)
    serve.add_argument("--max-sessions", type=int, default=limits.max_sessions)
    serve.add_argument(
        "--idle-timeout",
        type=float,
        default=limits.idle_timeout,
        metavar="SECONDS",
        help="end an HTTP connection (and its agent) unused this long",
    )
    serve.add_argument("--frame-limit", type=int, default=limits.frame_limit, metavar="BYTES")
    serve.add_argument(
        "--max-buffered-bytes", type=int, default=limits.max_buffered_bytes, metavar="BYTES"
    )
    serve.add_argument(
        "--exit-timeout",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="how long an agent may take to exit once its connection ended (then SIGTERM, "
        "SIGKILL to its process group)",
    )
    serve.add_argument(
        "--certfile",
        metavar="PEM",
        help="serve HTTPS and WSS with this certificate (its chain, PEM); needs --keyfile",
    )
    serve.add_argument("--keyfile", metavar="PEM", help="the certificate's private key (PEM)")
    serve.add_argument(
        "--trace",
        metavar="DIR",
        type=Path,
        help="record each connection into DIR (created if missing), one file per connection "
        "named by its time and connection id, in acp_protocol.trace's format",
    )
    serve.add_argument(
        "--route",
        metavar="NAME",
        help="this process's name behind a load balancer (letters, digits): every connection id"
        " starts NAME. so the proxy keeps a connection on it (docs/scale.md)",
    )
    serve.add_argument("--log-level", default="warning", choices=["debug", "info", "warning"])
    connect = commands.add_parser(
        "connect", help="a stdio agent forwarding to a remote one", description=CONNECT_HELP
    )
    connect.add_argument("url", metavar="URL")
    connect.add_argument("--token-env", metavar="VAR", help="send 'Authorization: Bearer <$VAR>'")
    connect.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="a header for every request; repeatable",
    )
    connect.add_argument("--eof-grace", type=float, default=5.0, metavar="SECONDS")
    connect.add_argument(
        "--ca-certs",
        metavar="PEM",
        help="check an https:// or wss:// server's certificate against these authorities "
        "instead of the system's (a server with a certificate of its own)",
    )
    return top


def main(argv: Sequence[str] | None = None, prog: str = "python -m acp_protocol.bridge") -> int:
    """Run the bridge; the exit status (0 done, 1 a failure, 2 a usage error, 130 Ctrl-C)."""
    args = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in args:
        split = args.index("--")
        args, command = args[:split], args[split + 1 :]
    options = parser(prog).parse_args(args)
    name = f"{prog.split()[-1].rsplit('.', 1)[-1]} {options.command}"
    try:
        if options.command == "serve":
            return _serve(name, options, command)
        if command:
            raise _Failure("connect takes no command after --")
        return _connect(name, options)
    except _Failure as failure:
        print(f"{name}: {failure}", file=sys.stderr)
        return 2 if failure.usage else 1
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # never a traceback
        print(f"{name}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


class _Failure(Exception):
    def __init__(self, message: str, *, usage: bool = True) -> None:
        super().__init__(message)
        self.usage = usage


def _reason(error: OSError | ssl.SSLError) -> str:
    return error.strerror or str(error)


def _tls_files(certfile: str | None, keyfile: str | None) -> tuple[str, str] | None:
    """The certificate and key to serve TLS with, checked before anything starts."""
    if certfile is None and keyfile is None:
        return None
    if certfile is None or keyfile is None:
        raise _Failure("TLS needs both --certfile and --keyfile")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certfile, keyfile)
    except (OSError, ssl.SSLError) as error:
        raise _Failure(
            f"cannot serve TLS with {certfile} and {keyfile}: {_reason(error)}"
        ) from None
    return certfile, keyfile


def _token(variable: str | None) -> str | None:
    if variable is None:
        return None
    token = os.environ.get(variable)
    if not token:
        raise _Failure(f"the environment variable {variable} (--token-env) is not set")
    return token


def _serve(name: str, options: argparse.Namespace, command: list[str]) -> int:
    from .serve import endpoint, listen, serve

    if not command:
        raise _Failure("give the agent's command after --: serve [options] -- AGENT_COMMAND")
    if shutil.which(command[0]) is None:
        raise _Failure(f"cannot run the agent: {command[0]}: not found or not executable")
    token = _token(options.token_env)
    tls = _tls_files(options.certfile, options.keyfile)
    if options.trace is not None:
        try:
            options.trace.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise _Failure(f"--trace {options.trace}: {_reason(error)}") from None
    try:
        policy = HttpServerOptions(
            allowed_origins=frozenset(options.allow_origin),
            token=token,
            frame_limit=options.frame_limit,
            max_buffered_bytes=options.max_buffered_bytes,
            max_connections=options.max_connections,
            max_sessions=options.max_sessions,
            idle_timeout=options.idle_timeout,
            route=options.route,
        )
    except ValueError as error:
        raise _Failure(str(error)) from None
    try:
        listener = listen(options.host, options.port)
    except OSError as error:
        reason = error.strerror or str(error)
        message = f"cannot listen on {options.host}:{options.port}: {reason}"
        raise _Failure(message, usage=False) from None
    if token is None and not options.no_token and not _loopback(listener.getsockname()[0]):
        listener.close()
        raise _Failure(
            f"--host {options.host} is reachable from other machines: set --token-env VAR "
            "(or --no-token to serve without one)"
        )
    _log_to_stderr(name, options.log_level.upper())
    url = endpoint(listener, policy.path or "/", tls=tls is not None)
    socket_url = url.replace("http", "ws", 1)
    print(f"{name}: {' '.join(command)} at {url} (WebSocket: {socket_url})", file=sys.stderr)
    sys.stderr.flush()
    try:
        run(
            serve(
                command,
                listener,
                policy,
                exit_timeout=options.exit_timeout,
                log_level=options.log_level,
                certfile=None if tls is None else tls[0],
                keyfile=None if tls is None else tls[1],
                trace=options.trace,
            )
        )
    except MissingExtra as error:
        raise _Failure(str(error), usage=False) from None
    finally:
        listener.close()
    return 0


def _connect(name: str, options: argparse.Namespace) -> int:
    from .connect import Outcome, forward_stdio

    headers = {}
    for header in options.header:
        key, colon, value = header.partition(":")
        if not colon or not key.strip():
            raise _Failure(f"--header {header!r}: write it 'Name: value'")
        headers[key.strip()] = value.strip()
    token = _token(options.token_env)
    verify: bool | ssl.SSLContext = True
    if options.ca_certs is not None:
        try:
            verify = ssl.create_default_context(cafile=options.ca_certs)
        except (OSError, ssl.SSLError) as error:
            raise _Failure(f"--ca-certs {options.ca_certs}: {_reason(error)}") from None
    reasons = _DeferredErrors(name)
    logging.basicConfig(level=logging.WARNING, handlers=[reasons], force=True)
    try:
        outcome = run(
            forward_stdio(
                options.url,
                token=token,
                headers=headers,
                eof_grace=options.eof_grace,
                on_outcome=lambda _: reasons.hold_all(),
                verify=verify,
            )
        )
    except (MissingExtra, ValueError, ConnectionError) as error:
        raise _Failure(str(error), usage=False) from None
    if outcome is Outcome.REMOTE_GONE:
        told = reasons.take()
        reason = told[-1].removeprefix(f"{options.url}: ") if told else "the remote agent closed it"
        hint = _token_hint(reason, options.token_env)
        raise _Failure(f"the connection to {options.url} ended: {reason}{hint}", usage=False)
    return 0


def _token_hint(reason: str, token_env: str | None) -> str:
    """What to do about a server that refused us for want of the right token (HTTP 401)."""
    if "HTTP 401" not in reason:
        return ""
    if token_env is None:
        return " (the server wants a token: --token-env VAR sends the one in $VAR)"
    return f" (the server refused the token in ${token_env}: is it the one `serve` was given?)"


class _DeferredErrors(logging.Handler):
    """Log lines printed a moment late: the transport's error that ends the connection becomes
    the bridge's one last line instead of a line before it."""

    DELAY = 0.5

    def __init__(self, name: str) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(_OneLine(name))
        self._held: list[str] = []
        self._holding = False

    def emit(self, record: logging.LogRecord) -> None:
        line = self.format(record)
        self._held.append(line)
        try:
            asyncio.get_running_loop().call_later(self.DELAY, self._release, line)
        except RuntimeError:
            self._release(line)

    def _release(self, line: str) -> None:
        if line in self._held and not self._holding:
            self._held.remove(line)
            print(line, file=sys.stderr, flush=True)

    def hold_all(self) -> None:
        """From now on keep every line for `take`."""
        self._holding = True

    def take(self) -> list[str]:
        """The lines not printed yet, without their prefix; none is printed after."""
        held, self._held = self._held, []
        return [line.split(": ", 1)[-1] for line in held]


def _log_to_stderr(name: str, level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine(name))
    logging.basicConfig(level=level, handlers=[handler], force=True)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False
