"""The stdio ↔ HTTP bridge: any stdio ACP agent served over HTTP, any remote agent as a stdio one.

Layer: transport (a tool on top of it). The bridge moves frames between two transports and knows
no ACP method and no JSON-RPC `Connection`: frames pass through unchanged, ids byte for byte, and
`$/cancel_request` is a frame like any other. Run it as `python -m acp_protocol.bridge`:

- `serve` (`bridge.serve`): the HTTP server of `transports.http_server`, with one child process
  per HTTP connection (`AgentProcess`, what the server serves in place of a `Connection`), ended
  with its process group when its connection ends or the bridge exits;
- `connect` (`bridge.connect`): this process's stdin/stdout forwarded to a remote agent by URL
  (`transports.remote`), for an editor that only spawns stdio agents;
- `cli`: the command line (`main`), every failure one line.

`serve` needs uvicorn, `connect` the remote client's libraries: both come with the `http` extra.
"""

from .connect import forward_stdio
from .serve import AgentProcess, bridge_app

__all__ = ["AgentProcess", "bridge_app", "forward_stdio"]
