"""The one jinja2 set-up every template of the generator is rendered with: `StrictUndefined` (a
missing value is an error, never an empty string), no autoescaping (the output is code and
Markdown, not HTML), and block tags that leave no blank lines behind."""

from __future__ import annotations

from pathlib import Path

import jinja2


def template_environment(folder: Path) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        extensions=["jinja2.ext.do"],
    )
