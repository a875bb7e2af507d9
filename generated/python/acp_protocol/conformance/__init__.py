# Copied by acp-codegen from templates/python/conformance/__init__.py. Do not edit here:
# edit the source, then run `make generate`.

"""The ACP conformance suite: `python -m acp_protocol.conformance agent|client -- CMD …`.

docs/conformance.md tells how to run it and what its cases check. Layers, bottom up:

- `peer`: the program under test, frame by frame, over the runtime's process transport;
- `data`: the types of each edition's generated data (`acp_protocol.<edition>.conformance`);
- `cases`, `steps`: the case model, and the steps cases share;
- one module per case family: `negotiation`, `methods`, `capabilities`, `prompt_turn`,
  `cancel_request`, `envelope` (with its data, `envelope.json`);
- `runner`: selection, a fresh program per case, parallel cases, deadlines;
- `report`: progress, a line per case, the summary, JUnit, traces; `page`: the HTML page;
- client mode (`client -- CMD …`, the suite as a scripted agent): `relay` (the agent command a
  client under test starts), `client_wire` (the client's process, its relay's socket),
  `client_agent` (the scripted agent's steps), the families `client_session` and
  `client_requests`, `client_runner`, and its command line `client_main`;
- `__main__`: the command line.
"""
