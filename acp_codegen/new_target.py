"""`acp-codegen new-target NAME [--out ROOT]`: the skeleton of a new language target.

It writes into ROOT (default: this source checkout), touching no file of another target:
- `acp_codegen/targets/NAME/`: the package: `__init__.py` (the entry point `generate` on the
  target kit), `scaffold.py` (`render_scaffold`), `hooks.py` (how the tests and the conformance
  suite build and run what the target writes; placeholders saying what is missing);
- `templates/NAME/`: one template per output-file kind of the existing targets (header, types,
  methods, behaviour, role, state, the starter, the runtime copy header), each walking the IR and
  writing only comments naming what it would render;
- `templates/NAME/runtime/`: one empty file per row of templates/runtime_map.json, named after
  the piece in the language's style, holding a header comment with the piece, its layer, its
  summary and its counterparts in the other runtimes.

The package is found by `acp_codegen.targets.TARGETS`, so `make generate` renders it into
generated/NAME/ at once. What is written comes from templates of templates
(templates/new-target/, their own delimiters so that `{{ }}` passes through), rendered with
`StrictUndefined`; the Python modules go through black.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from acp_codegen import resources
from acp_codegen.problems import GenerationError
from acp_codegen.targets import BUILT_IN, SHARED
from acp_codegen.words import pascal, snake

META = resources.TEMPLATES / "new-target"
RUNTIME_MAP = resources.TEMPLATES / "runtime_map.json"
NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
TEMPLATE_KINDS = (
    "header",
    "runtime_copy_header",
    "models",
    "methods",
    "behaviour",
    "role",
    "state",
    "scaffold",
)
"""The target's templates, one per output-file kind (templates/new-target/templates/<kind>.jinja
writes templates/NAME/<kind><extension>.jinja)."""
MODULES = ("__init__", "scaffold", "hooks")
"""The target's package modules (templates/new-target/target/<module>.py.jinja)."""


@dataclass(frozen=True, slots=True)
class Language:
    """What the skeleton must know of a language to write comments and name files."""

    title: str
    """How prose names it (`Rust`)."""
    extension: str
    """Its source files' ending (`.rs`)."""
    comment: str
    """What starts a line comment (`//`)."""
    file_case: str = "snake"
    """How a file is named from a piece: `snake` (`behaviour_engine`) or `pascal`."""
    handler_case: str = "snake"
    """How a handler is named from a method: `snake`, `camel` or `pascal`."""


LANGUAGES: Mapping[str, Language] = {
    "rust": Language("Rust", ".rs", "//"),
    "kotlin": Language("Kotlin", ".kt", "//", "pascal", "camel"),
    "java": Language("Java", ".java", "//", "pascal", "camel"),
    "swift": Language("Swift", ".swift", "//", "pascal", "camel"),
    "csharp": Language("C#", ".cs", "//", "pascal", "pascal"),
    "dart": Language("Dart", ".dart", "//", "snake", "camel"),
    "zig": Language("Zig", ".zig", "//", "snake", "camel"),
    "cpp": Language("C++", ".cpp", "//"),
    "ruby": Language("Ruby", ".rb", "#"),
    "elixir": Language("Elixir", ".ex", "#"),
    "haskell": Language("Haskell", ".hs", "--", "pascal", "camel"),
}
"""Languages the skeleton knows; any other name is taken as `//` comments, snake_case names and
`.NAME` files unless `--ext`, `--comment` and the cases say otherwise."""
CASES = {"snake": snake, "pascal": pascal}


def language_of(
    name: str,
    *,
    extension: str | None = None,
    comment: str | None = None,
    file_case: str | None = None,
    handler_case: str | None = None,
) -> Language:
    """`name`'s language as the table knows it, with what the caller says instead."""
    known = LANGUAGES.get(name, Language(pascal(name), "." + name, "//"))
    ending = known.extension if extension is None else "." + extension.lstrip(".")
    if not re.fullmatch(r"\.[A-Za-z0-9_]+", ending):
        raise GenerationError(f"new-target: --ext {extension!r} is not a file ending such as rs")
    said = known.comment if comment is None else comment
    if not said.strip() or "\n" in said:
        raise GenerationError(f"new-target: --comment {comment!r} is not a line-comment marker")
    return Language(
        known.title,
        ending,
        said,
        known.file_case if file_case is None else file_case,
        known.handler_case if handler_case is None else handler_case,
    )


def check_name(name: str, root: Path) -> None:
    """Refuse a NAME that is not a lower-case identifier, or that a target, the shared kit or a
    module of `acp_codegen.targets` already takes, in `root` or in this generator."""
    if not NAME.match(name) or keyword.iskeyword(name):
        raise GenerationError(
            f"new-target: {name!r} is not a lower-case identifier (a-z, then a-z, 0-9 or _), "
            "which a target's package name must be"
        )
    taken = [
        folder / entry
        for folder in (root / "acp_codegen" / "targets", resources.PACKAGE_DIR / "targets")
        for entry in (name, name + ".py")
        if (folder / entry).exists()
    ]
    taken += [root / "templates" / name] if (root / "templates" / name).exists() else []
    if taken or name in BUILT_IN or name in SHARED or name == "new-target":
        where = taken[0] if taken else resources.PACKAGE_DIR / "targets" / name
        raise GenerationError(f"new-target: {name!r} exists ({where}); choose another name")


def runtime_rows(runtime_map: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The map's rows with what a runtime file's header says: each language's files, or why it
    has none."""
    rows = []
    for row in runtime_map["rows"]:
        counterparts = []
        for language in runtime_map["languages"]:
            entry = row[language]
            said = ", ".join(entry) if isinstance(entry, list) else f"none ({entry['why']})"
            counterparts.append((language, said))
        rows.append({**row, "counterparts": counterparts})
    return rows


def skeleton(name: str, language: Language, runtime_map: Mapping[str, Any]) -> dict[str, str]:
    """Every file of the skeleton: its path below ROOT → its text."""
    env = meta_environment()
    case = CASES[language.file_case]
    context: dict[str, Any] = {
        "name": name,
        "title": language.title,
        "extension": language.extension,
        "c": language.comment,
        "file_case": language.file_case,
        "handler_case": language.handler_case,
        "notification_suffix": (
            "_notification" if language.handler_case == "snake" else "Notification"
        ),
        "spelled": spell("session/prompt", language.handler_case),
        "file": lambda stem: case(stem) + language.extension,
    }
    from acp_codegen.targets.python.format import format_source  # black: only when writing

    files: dict[str, str] = {}
    package = f"acp_codegen/targets/{name}"
    for module in MODULES:
        text = env.get_template(f"target/{module}.py.jinja").render(context)
        files[f"{package}/{module}.py"] = format_source(text)
    for kind in TEMPLATE_KINDS:
        text = env.get_template(f"templates/{kind}.jinja").render(context)
        files[f"templates/{name}/{kind}{language.extension}.jinja"] = text
    for row in runtime_rows(runtime_map):
        text = env.get_template("runtime_file.jinja").render(context, **row)
        files[f"templates/{name}/runtime/{case(row['piece'])}{language.extension}"] = text
    return files


def spell(method: str, handler_case: str) -> str:
    """A method name as the new target's handler spelling names it (the docstring's example)."""
    if handler_case == "snake":
        return snake(method)
    name = pascal(method)
    return name if handler_case == "pascal" else name[:1].lower() + name[1:]


def write_skeleton(name: str, language: Language, root: Path) -> dict[str, str]:
    """Check `name`, render the skeleton and write it into `root`; the files written."""
    check_name(name, root)
    runtime_map = json.loads(RUNTIME_MAP.read_text(encoding="utf-8"))
    files = skeleton(name, language, runtime_map)  # everything rendered before a file is written
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return files


def meta_environment() -> jinja2.Environment:
    """The templates of templates: `<< value >>`, `<% block %>`, `<# comment #>`."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(META),
        undefined=jinja2.StrictUndefined,
        variable_start_string="<<",
        variable_end_string=">>",
        block_start_string="<%",
        block_end_string="%>",
        comment_start_string="<#",
        comment_end_string="#>",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
