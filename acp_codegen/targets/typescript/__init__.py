"""TypeScript target: the npm package `acp-protocol-sdk`: types, decoders, a typed layer and its
runtime, for node 20.3+.

Entry point: `generate(spec, out_dir, options)`. Output (under `out_dir`), from the IR only:
  package.json, package-lock.json, tsconfig.json   the package (strict; no runtime dependency;
                                                    optional peers for remote agents)
  src/index.ts                                      the runtime's public API, versions
  src/versions.ts                                   one agent for all versions; falling back
  src/runtime/**/*.ts                               hand-written (templates/typescript/runtime/)
  src/<v>/{index,types,decode,methods,peers,behaviour,builders,state,agent,client}.ts   stable
                                                    editions (state.ts: the client-state table)
  src/<v>/unstable/…                                           each unstable edition

Run-time checks are generated decoders (`decode.ts`), not a validation library: the package
depends on nothing, the checks apply the schema's `x-deserialize-*` rules field by field, and
they check values in place (no copy of a valid message). One template per output-file kind
(templates/typescript/*.jinja); the templates lay the code out, no formatter runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from acp_codegen import __version__, ir, resources, templating
from acp_codegen.targets import Options, package_version
from acp_codegen.targets.state_table import state_table
from acp_codegen.targets.typescript.behaviour import behaviour_view
from acp_codegen.targets.typescript.builders import builder_tree
from acp_codegen.targets.typescript.names import (
    comment_lines,
    handler_names,
    json_literal,
    property_key,
)
from acp_codegen.targets.typescript.roles import role_views
from acp_codegen.targets.typescript.views import types_view
from acp_codegen.words import pascal

PACKAGE = "acp-protocol-sdk"
"""The npm package name (free on the npm registry), unless `options.package` names another."""
TEMPLATES = resources.TEMPLATES / "typescript"
RUNTIME_SOURCES = TEMPLATES / "runtime"
DEV_DEPENDENCIES = (
    ("@types/node", "20.19.43"),
    ("@types/ws", "8.18.2"),
    ("eventsource-parser", "3.1.1"),
    ("typescript", "5.9.3"),
    ("ws", "8.23.0"),
)
"""Exact pins, matching `package-lock.json.jinja` (refresh both together)."""
PEER_DEPENDENCIES = (("eventsource-parser", "^3.0.0"), ("ws", "^8.0.0"))
"""Optional peers, for remote agents only (runtime/transports/http_*.ts, ws_*.ts): the SSE
parser of the Streamable HTTP client, and the WebSocket server (and the client where node has no
global `WebSocket`). The base package needs neither."""


def generate(spec: ir.Specification, out_dir: Path, options: Options) -> None:
    """Write the TypeScript package for `spec` into `out_dir` (which the caller has made empty);
    `options.package` names the npm package (default `acp-protocol-sdk`)."""
    env = template_environment()
    header = env.get_template("header.ts.jinja").render(origin=spec.origin, command=options.command)
    name = options.package or PACKAGE
    version = package_version(spec)
    project = {"origin": spec.origin, "command": options.command, "name": name, "version": version}
    _write(
        out_dir / "package.json",
        env.get_template("package.json.jinja"),
        edition_keys=[e.key for e in spec.editions],
        dev_dependencies=DEV_DEPENDENCIES,
        peer_dependencies=PEER_DEPENDENCIES,
        **project,
    )
    _write(out_dir / "package-lock.json", env.get_template("package-lock.json.jinja"), **project)
    _write(out_dir / "tsconfig.json", env.get_template("tsconfig.json.jinja"), **project)
    src = out_dir / "src"
    _write(
        src / "index.ts",
        env.get_template("package_index.ts.jinja"),
        header=header,
        origin=spec.origin,
        package=name,
        version=spec.version,
        generator_version=__version__,
    )
    _write(
        src / "versions.ts",
        env.get_template("versions.ts.jinja"),
        header=header,
        editions=versioned_editions(spec),
    )
    copy_header = env.get_template("runtime_copy_header.ts.jinja")
    for source in sorted(RUNTIME_SOURCES.rglob("*.ts")):
        relative = source.relative_to(RUNTIME_SOURCES).as_posix()
        text = copy_header.render(file_name=relative, command=options.command)
        _write_text(src / "runtime" / relative, text + source.read_text())

    for edition in spec.editions:
        directory = src / edition.key
        names = handler_names(edition)
        context: dict[str, Any] = {
            "header": header,
            "edition": edition,
            "runtime": "../" * (1 + edition.key.count("/")) + "runtime",
            "roles": role_views(edition, names),
            "behaviour": behaviour_view(edition, names),
        }
        view = types_view(edition)
        _write(directory / "types.ts", env.get_template("types.ts.jinja"), view=view, **context)
        _write(directory / "decode.ts", env.get_template("decode.ts.jinja"), view=view, **context)
        for module in ("methods", "peers"):
            _write(directory / f"{module}.ts", env.get_template(f"{module}.ts.jinja"), **context)
        builders = env.get_template("builders.ts.jinja")
        _write(directory / "builders.ts", builders, tree=builder_tree(edition), **context)
        _write(
            directory / "behaviour.ts",
            env.get_template("behaviour.ts.jinja"),
            view=context["behaviour"],
            **context,
        )
        _write(
            directory / "state.ts",
            env.get_template("state.ts.jinja"),
            table=state_table(edition),
            **context,
        )
        for role in context["roles"]:
            _write(
                directory / f"{role.name}.ts",
                env.get_template("role.ts.jinja"),
                role=role,
                **context,
            )
        _write(directory / "index.ts", env.get_template("edition_index.ts.jinja"), **context)


def versioned_editions(spec: ir.Specification) -> list[ir.Edition]:
    """One edition per protocol for `versions.ts`, oldest first: the stable one, else the unstable
    one (a release may pin only an unstable edition of a protocol)."""
    chosen: dict[str, ir.Edition] = {}
    for edition in spec.editions:
        if edition.protocol not in chosen or edition.channel is ir.Stability.STABLE:
            chosen[edition.protocol] = edition
    return sorted(chosen.values(), key=lambda e: e.protocol_version)


def template_environment() -> jinja2.Environment:
    env = templating.template_environment(TEMPLATES)
    env.filters["tsjson"] = json_literal
    env.filters["property_key"] = property_key
    env.filters["comment_lines"] = comment_lines
    env.filters["pascal"] = pascal
    return env


def _write(path: Path, template: jinja2.Template, **context: Any) -> None:
    _write_text(path, template.render(**context))


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
