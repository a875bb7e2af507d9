"""acp-codegen: schema-driven SDK generator for the Agent Client Protocol.

Pipeline: pinned schema (`schema/`) → `loader` → `validation` → `ir` → one target per language
(`acp_codegen/targets/<lang>/`, templates in `templates/<lang>/`) → `pipeline` (atomic swap).
"""

__version__ = "0.3.0"
