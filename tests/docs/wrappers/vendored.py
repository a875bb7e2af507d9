"""docs/install.md's vendored imports, run from the folder `acp-codegen generate --out src` wrote
into (the project's own source folder is on its path, as `src/` layouts are)."""

import sys

sys.path.insert(0, "src")

# FRAGMENT

assert Agent.__module__ == "myapp._acp.v1.agent", Agent.__module__
assert callable(run_agent) and AgentContext is not None
print(helpers.agent_message_chunk("vendored").to_wire())
print(models.ContentBlockText(text="hi").to_wire())
