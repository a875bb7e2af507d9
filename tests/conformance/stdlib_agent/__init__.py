"""An ACP agent written with Python's standard library only, from the schema texts in schema/
and JSON-RPC 2.0, not with our runtime (no acp_protocol, no pydantic): the suite's witness that a
correct agent passes every MUST and SHOULD case (tests/conformance/test_stdlib_agent.py).

Modules: wire.py (NDJSON framing, the JSON-RPC envelope, dispatch), checks.py (params checked by
hand), sessions.py (what a session keeps), agent.py (negotiation), v1.py (prompt turns), v2.py
(the prompt lifecycle), __main__.py (`python -m tests.conformance.stdlib_agent --protocol 1|2`).
"""
