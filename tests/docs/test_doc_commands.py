"""The commands the docs give run as a reader types them: after `make generate` the CLI is
`.venv/bin/acp-codegen` (the project venv is not on a reader's PATH, though the doc tests put it
there), so a shell block calls a bare `acp-codegen` only after activating a venv it installed
the CLI into."""

from __future__ import annotations

import re

from tests.docs.blocks import all_blocks

BARE = re.compile(r"(?:^|[;&|(]\s*|\$\(\s*)acp-codegen\b")
"""`acp-codegen` where a command starts (a line's start, after `;`, `&&`, `|`, `(` or `$(`)."""
ACTIVATES = re.compile(r"(?:^|[;&(]\s*)(?:\.|source)\s+\S*bin/activate\b")


def test_shell_blocks_call_the_cli_by_the_path_make_generate_installs_it_at() -> None:
    bare = []
    for block in all_blocks():
        if block.language != "sh":
            continue
        activated = False
        for offset, line in enumerate(block.text.splitlines(), start=1):
            code = line.split(" #", 1)[0].strip()
            activated = activated or bool(ACTIVATES.search(code))
            if BARE.search(code) and not activated:
                bare.append(f"{block.where} (+{offset}): {code}")
    assert not bare, "a bare `acp-codegen` (use .venv/bin/acp-codegen):\n" + "\n".join(bare)
