"""acp_protocol.trace: recording a conversation between an editor and an agent."""
