"""Black, pinned, over the Python target's smaller modules (methods, peers, roles, inits).

The models modules are laid out by their template in their final form; they are not formatted.
"""

from __future__ import annotations

import black

BLACK_MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY311})


def format_source(source: str) -> str:
    return black.format_str(source, mode=BLACK_MODE)
