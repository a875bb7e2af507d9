"""The conformance field: `python -m acp_protocol.conformance agent` run against our starters
and other people's ACP agents, and what it finds published in docs/conformance.md (`make
conformance`; one row: `make conformance ROW=<key>`). Never part of `make test`'s pass/fail.

Layers, bottom up:

- `rows`: the rows (implementation, version, edition, which build);
- `builds`: what a build gives and how builds run; `ours`: our starters; `third_party`: the
  SDKs' example agents and production agents, each from a pin in this folder (rust/, go/,
  python/) or a lock under tests/interop;
- `run`: the suite on one row, its result read back from the traces;
- `publish`: docs/conformance/field.json, a page per row with failures, the table;
- `__main__`: the command line.
"""
