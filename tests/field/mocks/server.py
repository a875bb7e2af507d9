"""The loopback HTTP server every mock runs on: a thread serving 127.0.0.1 on a free port, routing
each request to the vendor's handler. Standard library only."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Respond = Callable[["Exchange"], None]
"""A vendor's handler: reads the exchange's request, writes its answer."""


class Exchange:
    """One HTTP request and the means to answer it (JSON, or an event stream)."""

    def __init__(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        self.handler = handler
        self.method = handler.command
        self.path = handler.path
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def send_json(self, value: Any, status: int = 200) -> None:
        data = json.dumps(value).encode()
        self.handler.send_response(status)
        self.handler.send_header("content-type", "application/json")
        self.handler.send_header("content-length", str(len(data)))
        self.handler.end_headers()
        self.handler.wfile.write(data)

    def start_stream(self, content_type: str = "text/event-stream") -> None:
        self.handler.send_response(200)
        self.handler.send_header("content-type", content_type)
        self.handler.send_header("cache-control", "no-cache")
        self.handler.send_header("connection", "close")
        self.handler.end_headers()

    def write(self, data: str) -> bool:
        """Write part of the stream; False once the agent has hung up (a cancelled turn)."""
        try:
            self.handler.wfile.write(data.encode())
            self.handler.wfile.flush()
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False


@contextmanager
def serve(respond: Respond) -> Iterator[str]:
    """Serve `respond` on loopback; yields the base URL (`http://127.0.0.1:PORT`)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_one(self) -> None:
            self.close_connection = True
            try:
                length = int(self.headers.get("content-length") or 0)
                respond(Exchange(self, self.rfile.read(length)))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the agent hung up (a cancelled turn, an agent exiting): nothing to answer

        do_GET = do_POST = do_PUT = do_DELETE = handle_one

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the mock's record is its script's `requests`."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
