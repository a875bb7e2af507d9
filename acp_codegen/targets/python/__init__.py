"""Python target: the package `acp_protocol` of pydantic v2 models, a typed layer and its runtime.

Entry point: `generate(spec, out_dir, options)`. Output (under `out_dir`), from the IR only:
  pyproject.toml                         the distribution `acp-protocol-sdk` (not with --package)
  acp_protocol/__init__.py, py.typed     (under `options.package`'s path with --package)
  acp_protocol/runtime/…                 hand-written, copied from templates/python/runtime/
  acp_protocol/conformance/…             the conformance suite, from templates/python/conformance/
  acp_protocol/agents.py                 every protocol version on one connection, both sides
  acp_protocol/bridge.py                 `python -m acp_protocol.bridge` (runtime/bridge/cli.py)
  acp_protocol/<v>/{__init__,behaviour,conformance,models,methods,peers,agent,client}.py
  acp_protocol/<v>/state.py              the client-state table (`x-state`, or v1's rule table)
  acp_protocol/<v>/{helpers,builders}.py  constructors of the unions' variants
  acp_protocol/<v>/_models/{__init__,<group>}.py   the classes behind `models`, built on first use
  acp_protocol/<v>/unstable/…                                        each unstable edition

One template per output-file kind (templates/python/*.jinja). The models modules are written in
their final layout by their template; black formats the smaller modules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import jinja2

from acp_codegen import __version__, ir, resources, templating
from acp_codegen.targets import Options, package_version
from acp_codegen.targets.kit.files import Writer, prepend
from acp_codegen.targets.python.builders import builders_view
from acp_codegen.targets.python.conformance import conformance_view
from acp_codegen.targets.python.format import format_source
from acp_codegen.targets.python.helpers import helpers_view
from acp_codegen.targets.python.models import models_view
from acp_codegen.targets.python.roles import (
    HANDLERS,
    role_views,
)
from acp_codegen.targets.python.types import PRIMITIVES, attribute_name
from acp_codegen.targets.state_table import state_table

PACKAGE = "acp_protocol"
"""The import name of the package written as a distribution (without `--package`)."""
DISTRIBUTION = "acp-protocol-sdk"
"""Its distribution name: free on PyPI (`acp-protocol` is another project's)."""
PYDANTIC = ">=2.10,<3"
"""The pydantic versions the generated package supports: 2.7-2.9 fail on the first request
(`SchemaError: definition ... was never filled`); the lowest is tested by `make test-matrix`."""
TEMPLATES = resources.TEMPLATES / "python"
# Hand-written subpackages copied verbatim (each file with a header naming its source, `PREAMBLES`):
# the runtime, and the conformance suite (`python -m acp_protocol.conformance`, its data files too).
COPIED_SUBPACKAGES = ("runtime", "conformance", "trace")
# (role, method) → the base-class method answers it from a runtime helper when the user sets one
# (`Agent.session_store`, `Client.file_service`); see templates/python/role.py.jinja.
PROVIDED_METHODS = frozenset(
    {("agent", "session/list"), ("client", "fs/read_text_file"), ("client", "fs/write_text_file")}
)


def generate(spec: ir.Specification, out_dir: Path, options: Options) -> None:
    """Write the Python package for `spec` into `out_dir` (which the caller has made empty): as
    the distribution `DISTRIBUTION` (pyproject.toml + `acp_protocol/`), or, with
    `options.package`, only the package, under that import name."""
    HANDLERS.check(spec)
    env = template_environment()
    out = Writer(env, TEMPLATES, _format)
    header = env.get_template("header.py.jinja").render(origin=spec.origin, command=options.command)
    package = options.package or PACKAGE
    package_dir = out_dir.joinpath(*package.split("."))
    editions = [(e, package_dir / e.key, _runtime_import(e)) for e in spec.editions]
    models = [render_models(e, header, r) for e, _, r in editions]

    if options.package is None:
        out.render(
            out_dir / "pyproject.toml",
            "pyproject.toml.jinja",
            header=header,
            name=DISTRIBUTION,
            version=package_version(spec),
            origin=spec.origin,
            package=PACKAGE,
            pydantic=PYDANTIC,
        )
    out.render(
        package_dir / "__init__.py",
        "package_init.py.jinja",
        header=header,
        package=package,
        spec=spec,
        generator_version=__version__,
    )
    out.write(package_dir / "py.typed", "")
    stable = [e for e in spec.editions if e.channel is ir.Stability.STABLE]
    if stable:
        out.render(
            package_dir / "agents.py",
            "agents.py.jinja",
            header=header,
            editions=stable,
        )
    out.render(
        package_dir / "bridge.py",
        "bridge.py.jinja",
        header=header,
        package=package,
    )
    for subpackage in COPIED_SUBPACKAGES:
        out.copy(
            subpackage,
            package_dir / subpackage,
            header="runtime_copy_header.py.jinja",
            command=options.command,
            preambles=PREAMBLES,
        )

    for protocol in spec.protocols:
        if spec.edition(protocol, ir.Stability.STABLE) is None:
            # Only an unstable edition is pinned (schemas before 2.0): the protocol's package
            # holds just `unstable`.
            out.render(
                package_dir / protocol / "__init__.py",
                "edition_init.py.jinja",
                header=header,
                protocol=protocol,
                edition=None,
                has_unstable=True,
                submodules=["unstable"],
            )
    for (edition, directory, runtime_import), model_files in zip(editions, models, strict=True):
        has_unstable = (
            edition.channel is ir.Stability.STABLE
            and spec.edition(edition.protocol, ir.Stability.UNSTABLE) is not None
        )
        roles = role_views(edition)
        helpers = helpers_view(edition)
        builders = builders_view(edition)
        modules = ["behaviour", "conformance", "methods", "models", "peers", "state"]
        modules += ["helpers"] if helpers.helpers else []
        modules += ["builders"] if builders.roots else []
        submodules = sorted([*modules, *(role.name for role in roles)])
        submodules += ["unstable"] if has_unstable else []
        context = {
            "header": header,
            "protocol": edition.protocol,
            "edition": edition,
            "runtime_import": runtime_import,
            "conformance_import": runtime_import.removesuffix("runtime") + "conformance",
            "roles": roles,
            "handler_names": HANDLERS.names(edition),
            "provided_methods": PROVIDED_METHODS,
        }
        out.render(
            directory / "__init__.py",
            "edition_init.py.jinja",
            has_unstable=has_unstable,
            submodules=submodules,
            **context,
        )
        for relative, text in model_files.items():
            out.write(directory / relative, text, formatted=True)
        out.render(directory / "behaviour.py", "behaviour.py.jinja", **context)
        out.render(
            directory / "conformance.py",
            "conformance.py.jinja",
            view=conformance_view(edition),
            **context,
        )
        out.render(directory / "methods.py", "methods.py.jinja", **context)
        out.render(
            directory / "state.py",
            "state.py.jinja",
            table=state_table(edition),
            **context,
        )
        out.render(directory / "peers.py", "peers.py.jinja", **context)
        if helpers.helpers:
            out.render(
                directory / "helpers.py",
                "helpers.py.jinja",
                view=helpers,
                **context,
            )
        if builders.roots:
            out.render(
                directory / "builders.py",
                "builders.py.jinja",
                view=builders,
                **context,
            )
        for role in roles:
            out.render(
                directory / f"{role.name}.py",
                "role.py.jinja",
                role=role,
                **context,
            )


def _json_preamble(header: str, text: str) -> str:
    """A copied JSON data file: the header's sentence as its first member, `"generated"` (JSON
    has no comments)."""
    said = " ".join(line.removeprefix("# ") for line in header.splitlines() if line)
    data = {"generated": said, **json.loads(text)}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


PREAMBLES = {".py": prepend, ".json": _json_preamble}
"""How a copied file takes its header, by its ending: a module on top, a JSON data file as a
member (no other file is copied)."""


def template_environment() -> jinja2.Environment:
    filters = {"pyrepr": _pyrepr, "docstring": _docstring, "constant_name": _constant_name}
    names = {"attribute_name": attribute_name}
    return templating.template_environment(
        TEMPLATES, {**filters, **names}, {"primitives": PRIMITIVES}
    )


def render_models(edition: ir.Edition, header: str, runtime_import: str) -> dict[str, str]:
    """The models of one edition, laid out by their templates (no formatter pass), by path
    relative to the edition's package: the facade `models.py` and `_models/` with one module per
    group (`model_groups`). `runtime_import` is the runtime package as the edition's package
    imports it; the groups, one level down, get one more dot when it is relative."""
    env = template_environment()
    view = models_view(edition)
    group_runtime = "." + runtime_import if runtime_import.startswith(".") else runtime_import
    files = {
        "models.py": env.get_template("models.py.jinja").render(
            header=header, edition=edition, view=view
        ),
        "_models/__init__.py": env.get_template("model_groups_init.py.jinja").render(header=header),
    }
    group_template = env.get_template("model_group.py.jinja")
    for group in view.groups:
        files[f"_models/{group.module}.py"] = group_template.render(
            header=header,
            edition=edition,
            view=view,
            group=group,
            runtime_import=group_runtime,
        )
    return files


def _runtime_import(edition: ir.Edition) -> str:
    """The relative import of `acp_protocol.runtime` from the edition's package."""
    return "." * (1 + edition.key.count("/") + 1) + "runtime"


def _constant_name(method: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in method).strip("_").upper()


def _pyrepr(value: object) -> str:
    """A JSON value as Python source: strings double-quoted (a JSON string literal is a valid
    Python one), mappings as dicts, lists as lists."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_pyrepr(k)}: {_pyrepr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_pyrepr(v) for v in value) + "]"
    return repr(value)


def _docstring(text: str, indent: int) -> str:
    """A schema description as a docstring literal whose lines after the first are indented by
    `indent` spaces; backslashes and triple quotes are escaped."""
    text = text.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text = text[:-1] + '\\"'  # a closing quote would merge with the docstring's
    lines = text.splitlines() or ["(The schema gives no description.)"]
    if len(lines) == 1:
        return '"""' + lines[0] + '"""'
    pad = " " * indent
    rest = [pad + line if line.strip() else "" for line in lines[1:]]
    return '"""' + "\n".join([lines[0], *rest, pad + '"""'])


def _format(path: Path, text: str) -> str:
    """black for a module written by a template; the models modules are laid out by theirs."""
    return format_source(text) if path.suffix == ".py" else text
