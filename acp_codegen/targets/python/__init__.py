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
from typing import Any

import jinja2

from acp_codegen import __version__, ir, resources, templating
from acp_codegen.targets import Options, package_version
from acp_codegen.targets.python.builders import builders_view
from acp_codegen.targets.python.conformance import conformance_view
from acp_codegen.targets.python.format import format_source
from acp_codegen.targets.python.helpers import helpers_view
from acp_codegen.targets.python.models import models_view
from acp_codegen.targets.python.roles import any_typed_results, method_handler_names, role_views
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
RUNTIME_SOURCES = TEMPLATES / "runtime"
# Hand-written subpackages copied verbatim (each file with a header naming its source): the
# runtime, and the conformance suite (`python -m acp_protocol.conformance`, its data files too).
COPIED_SUBPACKAGES = ("runtime", "conformance")
COPIED_DATA = (".json",)
# (role, method) → the base-class method answers it from a runtime helper when the user sets one
# (`Agent.session_store`, `Client.file_service`); see templates/python/role.py.jinja.
PROVIDED_METHODS = frozenset(
    {("agent", "session/list"), ("client", "fs/read_text_file"), ("client", "fs/write_text_file")}
)


def generate(spec: ir.Specification, out_dir: Path, options: Options) -> None:
    """Write the Python package for `spec` into `out_dir` (which the caller has made empty): as
    the distribution `DISTRIBUTION` (pyproject.toml + `acp_protocol/`), or, with
    `options.package`, only the package, under that import name."""
    env = template_environment()
    header = env.get_template("header.py.jinja").render(origin=spec.origin, command=options.command)
    package = options.package or PACKAGE
    package_dir = out_dir.joinpath(*package.split("."))
    editions = [(e, package_dir / e.key, _runtime_import(e)) for e in spec.editions]
    models = [render_models(e, header, r) for e, _, r in editions]

    if options.package is None:
        _write_text(
            out_dir / "pyproject.toml",
            env.get_template("pyproject.toml.jinja").render(
                header=header,
                name=DISTRIBUTION,
                version=package_version(spec),
                origin=spec.origin,
                package=PACKAGE,
                pydantic=PYDANTIC,
            ),
        )
    _write(
        package_dir / "__init__.py",
        env.get_template("package_init.py.jinja"),
        header=header,
        package=package,
        spec=spec,
        generator_version=__version__,
    )
    (package_dir / "py.typed").write_text("")
    stable = [e for e in spec.editions if e.channel is ir.Stability.STABLE]
    if stable:
        _write(
            package_dir / "agents.py",
            env.get_template("agents.py.jinja"),
            header=header,
            editions=stable,
        )
    _write(
        package_dir / "bridge.py",
        env.get_template("bridge.py.jinja"),
        header=header,
        package=package,
    )
    for subpackage in COPIED_SUBPACKAGES:
        _copy_subpackage(env, subpackage, package_dir, options.command)

    for protocol in spec.protocols:
        if spec.edition(protocol, ir.Stability.STABLE) is None:
            # Only an unstable edition is pinned (schemas before 2.0): the protocol's package
            # holds just `unstable`.
            _write(
                package_dir / protocol / "__init__.py",
                env.get_template("edition_init.py.jinja"),
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
            "handler_names": method_handler_names(edition),
            "provided_methods": PROVIDED_METHODS,
            "any_typed_results": any_typed_results(edition),
        }
        init = env.get_template("edition_init.py.jinja")
        _write(
            directory / "__init__.py",
            init,
            has_unstable=has_unstable,
            submodules=submodules,
            **context,
        )
        for relative, text in model_files.items():
            _write_text(directory / relative, text, formatted=True)
        _write(directory / "behaviour.py", env.get_template("behaviour.py.jinja"), **context)
        _write(
            directory / "conformance.py",
            env.get_template("conformance.py.jinja"),
            view=conformance_view(edition),
            **context,
        )
        _write(directory / "methods.py", env.get_template("methods.py.jinja"), **context)
        _write(
            directory / "state.py",
            env.get_template("state.py.jinja"),
            table=state_table(edition),
            **context,
        )
        _write(directory / "peers.py", env.get_template("peers.py.jinja"), **context)
        if helpers.helpers:
            _write(
                directory / "helpers.py",
                env.get_template("helpers.py.jinja"),
                view=helpers,
                **context,
            )
        if builders.roots:
            _write(
                directory / "builders.py",
                env.get_template("builders.py.jinja"),
                view=builders,
                **context,
            )
        for role in roles:
            _write(
                directory / f"{role.name}.py",
                env.get_template("role.py.jinja"),
                role=role,
                **context,
            )


def _copy_subpackage(env: jinja2.Environment, name: str, package_dir: Path, command: str) -> None:
    """Copy templates/python/<name>/ into the package's <name>/: each Python file under a header
    naming its source and the command that regenerates it; each JSON data file with that
    sentence as its first member, `"generated"` (JSON has no comments)."""
    sources = TEMPLATES / name
    for source in sorted(sources.rglob("*")):
        if "__pycache__" in source.parts or not source.is_file():
            continue
        relative = source.relative_to(sources).as_posix()  # subpackages: `transports/`
        copy_header = env.get_template("runtime_copy_header.py.jinja").render(
            file_name=f"{name}/{relative}", command=command
        )
        if source.suffix == ".py":
            _write_text(package_dir / name / relative, copy_header + "\n" + source.read_text())
        elif source.suffix in COPIED_DATA:
            said = " ".join(line.removeprefix("# ") for line in copy_header.splitlines())
            data = {"generated": said, **json.loads(source.read_text(encoding="utf-8"))}
            text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
            _write_text(package_dir / name / relative, text)


def template_environment() -> jinja2.Environment:
    env = templating.template_environment(TEMPLATES)
    env.filters["pyrepr"] = _pyrepr
    env.filters["docstring"] = _docstring
    env.filters["attribute_name"] = attribute_name
    env.filters["constant_name"] = _constant_name
    env.globals["primitives"] = PRIMITIVES
    return env


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


def _write(path: Path, template: jinja2.Template, **context: Any) -> None:
    _write_text(path, template.render(**context))


def _write_text(path: Path, text: str, *, formatted: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".py" and not formatted:
        text = format_source(text)
    path.write_text(text)
