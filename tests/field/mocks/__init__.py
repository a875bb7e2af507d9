"""Loopback mocks of model APIs, one module per vendor protocol: a scripted server that says what
the "model" answers and records what the agent sent. The agent, not the mock, is under test."""
