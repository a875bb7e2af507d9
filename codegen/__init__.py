"""acp-codegen: schema-driven SDK generator for the Agent Client Protocol.

Pipeline: pinned schema (`schema/`) → `loader` → `validation` → `ir` → one target per language
(`codegen/targets/<lang>.py`, templates in `templates/<lang>/`) → `output` (atomic swap).
"""
