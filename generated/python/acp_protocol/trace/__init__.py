# Copied by acp-codegen from templates/python/trace/__init__.py. Do not edit here:
# edit the source, then run `make generate`.

"""Recordings of ACP conversations: `python -m acp_protocol.trace record --out FILE -- AGENT …`.

Layers, bottom up:

- `frames`: the recording format (one JSON object per line: a header, then each frame with its
  time, direction and JSON value, or its raw text when the line is not JSON, and the agent's
  stderr lines); the conformance suite's traces use the same frame objects;
- `record`: the pass-through an editor starts instead of its agent;
- `view_read` (a recording read tolerantly), `view_model` and `view_summary` (what it holds),
  `view` (the terminal summary), `view_turns`, `page_style` and `page` (the HTML page): `trace
  view FILE [--html OUT]`;
- `__main__`: the command line.
"""
