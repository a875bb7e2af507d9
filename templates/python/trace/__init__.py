"""Recordings of ACP conversations: `python -m acp_protocol.trace record --out FILE -- AGENT …`.

Layers, bottom up:

- `frames`: the recording format (one JSON object per line: a header, then each frame with its
  time, direction and JSON value, or its raw text when the line is not JSON, and the agent's
  stderr lines); the conformance suite's traces use the same frame objects;
- `record`: the pass-through an editor starts instead of its agent;
- `__main__`: the command line.
"""
