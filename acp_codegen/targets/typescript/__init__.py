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
from acp_codegen.targets.kit.files import Writer, prepend
from acp_codegen.targets.kit.roles import role_views
from acp_codegen.targets.state_table import state_table
from acp_codegen.targets.typescript.behaviour import behaviour_view
from acp_codegen.targets.typescript.builders import builder_tree
from acp_codegen.targets.typescript.names import (
    HANDLERS,
    comment_lines,
    json_literal,
    property_key,
)
from acp_codegen.targets.typescript.views import types_view
from acp_codegen.words import pascal

PACKAGE = "acp-protocol-sdk"
"""The npm package name (free on the npm registry), unless `options.package` names another."""
TEMPLATES = resources.TEMPLATES / "typescript"
DEV_DEPENDENCIES = (
    ("@types/node", "20.19.43"),
    ("@types/pg", "8.23.1"),
    ("@types/ws", "8.18.2"),
    ("eventsource-parser", "3.1.1"),
    ("pg", "8.23.1"),
    ("typescript", "5.9.3"),
    ("ws", "8.23.0"),
)
"""Exact pins, matching `package-lock.json.jinja` (refresh both together)."""
PEER_DEPENDENCIES = (("eventsource-parser", "^3.0.0"), ("pg", "^8.0.0"), ("ws", "^8.0.0"))
"""Optional peers, for remote agents only (runtime/transports/http_*.ts, ws_*.ts): the SSE
parser of the Streamable HTTP client, and the WebSocket server (and the client where node has no
global `WebSocket`); `pg` for the PostgreSQL session store only (its own entry point,
`acp-protocol-sdk/postgres`). The base package needs none of them."""


def generate(spec: ir.Specification, out_dir: Path, options: Options) -> None:
    """Write the TypeScript package for `spec` into `out_dir` (which the caller has made empty);
    `options.package` names the npm package (default `acp-protocol-sdk`)."""
    HANDLERS.check(spec)
    env = template_environment()
    out = Writer(env, TEMPLATES)
    header = env.get_template("header.ts.jinja").render(origin=spec.origin, command=options.command)
    name = options.package or PACKAGE
    version = package_version(spec)
    project = {"origin": spec.origin, "command": options.command, "name": name, "version": version}
    out.render(
        out_dir / "package.json",
        "package.json.jinja",
        edition_keys=[e.key for e in spec.editions],
        dev_dependencies=DEV_DEPENDENCIES,
        peer_dependencies=PEER_DEPENDENCIES,
        **project,
    )
    out.render(out_dir / "package-lock.json", "package-lock.json.jinja", **project)
    out.render(out_dir / "tsconfig.json", "tsconfig.json.jinja", **project)
    src = out_dir / "src"
    out.render(
        src / "index.ts",
        "package_index.ts.jinja",
        header=header,
        origin=spec.origin,
        package=name,
        version=spec.version,
        generator_version=__version__,
    )
    out.render(
        src / "versions.ts",
        "versions.ts.jinja",
        header=header,
        editions=versioned_editions(spec),
    )
    out.copy(
        "runtime",
        src / "runtime",
        header="runtime_copy_header.ts.jinja",
        command=options.command,
        preambles={".ts": prepend},
    )

    for edition in spec.editions:
        directory = src / edition.key
        names = HANDLERS.names(edition)
        context: dict[str, Any] = {
            "header": header,
            "edition": edition,
            "runtime": "../" * (1 + edition.key.count("/")) + "runtime",
            "roles": role_views(edition, names),
            "behaviour": behaviour_view(edition, names),
        }
        view = types_view(edition)
        out.render(directory / "types.ts", "types.ts.jinja", view=view, **context)
        out.render(directory / "decode.ts", "decode.ts.jinja", view=view, **context)
        for module in ("methods", "peers"):
            out.render(directory / f"{module}.ts", f"{module}.ts.jinja", **context)
        out.render(
            directory / "builders.ts", "builders.ts.jinja", tree=builder_tree(edition), **context
        )
        out.render(
            directory / "behaviour.ts",
            "behaviour.ts.jinja",
            view=context["behaviour"],
            **context,
        )
        out.render(
            directory / "state.ts",
            "state.ts.jinja",
            table=state_table(edition),
            **context,
        )
        for role in context["roles"]:
            out.render(
                directory / f"{role.name}.ts",
                "role.ts.jinja",
                role=role,
                **context,
            )
        out.render(directory / "index.ts", "edition_index.ts.jinja", **context)


def versioned_editions(spec: ir.Specification) -> list[ir.Edition]:
    """One edition per protocol for `versions.ts`, oldest first: the stable one, else the unstable
    one (a release may pin only an unstable edition of a protocol)."""
    chosen: dict[str, ir.Edition] = {}
    for edition in spec.editions:
        if edition.protocol not in chosen or edition.channel is ir.Stability.STABLE:
            chosen[edition.protocol] = edition
    return sorted(chosen.values(), key=lambda e: e.protocol_version)


def template_environment() -> jinja2.Environment:
    filters = {"tsjson": json_literal, "property_key": property_key, "pascal": pascal}
    return templating.template_environment(TEMPLATES, {**filters, "comment_lines": comment_lines})
