"""Where the generator's data lives: its templates and pinned schemas.

In a source checkout they sit beside the package (`templates/`, `schema/` at the project root);
in an installed wheel they are package data (`acp_codegen/templates/`, `acp_codegen/schema/`,
see `[tool.hatch.build.targets.wheel.force-include]` in pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
INSTALLED = (PACKAGE_DIR / "templates").is_dir()
"""True in an installed wheel; False in a source checkout."""
DATA_ROOT = PACKAGE_DIR if INSTALLED else PACKAGE_DIR.parent
"""The folder holding `schema/` (the pinned schemas and their lock) and `templates/`."""
TEMPLATES = DATA_ROOT / "templates"
