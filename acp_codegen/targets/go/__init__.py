"""Go target: one Go module (standard library only) with a package per edition, from the IR.

Entry point: `generate(spec, out_dir, options)`. Output (under `out_dir`), from the IR only:
  go.mod                                   the module `acp-protocol-sdk` (Go 1.24+: `omitzero`)
  *.go                                     package acp: method tables, behaviour, errors (hand-
                                           written: templates/go/runtime/*.go)
  wire/*.go                                absent/null/value, kept members, decoders (hand-written)
  <v>/{doc,types,codec,methods,behaviour,registry}.go   each stable edition (package v1, v2)
  <v>/state.go                             the client-state table (`x-state`, or v1's rule table)
  <v>/{agent,client}.go                    the typed layer of each role: interface, handler, peer
                                           (v2: the client's session views, `AgentPeer.Session`)
  <v>/unstable/…                           each unstable edition (package unstable)

Every union is a sealed interface, every field that may be absent or null a `wire.Opt[T]`, and
the decoders are generated (no reflection-driven validation): they apply the schema's
`x-deserialize-*` rules field by field and say where a value is wrong by its JSON pointer. One
template per output-file kind (templates/go/*.jinja); the templates lay the code out the way
gofmt does, and no formatter runs (so generating needs no Go toolchain).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2

from acp_codegen import ir, resources, templating
from acp_codegen.problems import GenerationError
from acp_codegen.targets import Options, package_version
from acp_codegen.targets.go.builders import builders_view
from acp_codegen.targets.go.names import (
    METHODS,
    doc_lines,
    go_json_text,
    go_name,
    go_string,
    go_text,
)
from acp_codegen.targets.go.session_views import session_views
from acp_codegen.targets.go.state import state_feeding
from acp_codegen.targets.go.tables import TablesView
from acp_codegen.targets.go.views import FieldView, PackageView
from acp_codegen.targets.kit.files import Writer, prepend
from acp_codegen.targets.state_table import state_table

MODULE = "acp-protocol-sdk"
"""The Go module path of the generated code (the hand-written runtime imports it too)."""
GO_VERSION = "1.24"
"""The lowest Go the module builds with: `omitzero` (absent `wire.Opt` fields) is 1.24's."""
TEMPLATES = resources.TEMPLATES / "go"
EDITION_FILES = ("doc", "types", "codec", "methods", "behaviour", "registry", "state")


def generate(spec: ir.Specification, out_dir: Path, options: Options) -> None:
    """Write the Go module for `spec` into `out_dir` (which the caller has made empty)."""
    if options.package is not None:
        raise GenerationError(
            f"the Go target writes the module {MODULE}; another module path is not supported"
        )
    METHODS.check(spec)
    env = template_environment()
    out = Writer(env, TEMPLATES)
    header = (
        env.get_template("header.go.jinja")
        .render(origin=spec.origin, command=options.command)
        .rstrip("\n")
    )
    project = {"header": header, "module": MODULE, "go_version": GO_VERSION}
    out.render(out_dir / "go.mod", "go.mod.jinja", **project)
    out.render(
        out_dir / "version.go",
        "version.go.jinja",
        version=package_version(spec),
        schema_version=spec.version,
        origin=spec.origin,
        **project,
    )
    out.copy(
        "runtime",
        out_dir,
        header="runtime_copy_header.go.jinja",
        command=options.command,
        # go.mod and go.sum: the nested module runtime/postgres (acp-protocol-sdk/postgres, on
        # pgx), so the acp module itself stays standard library only; go.sum takes no comment.
        preambles={".go": prepend, ".mod": prepend, ".sum": lambda _header, text: text},
    )
    for edition in spec.editions:
        view = PackageView(edition)
        view.package_names()
        tables = TablesView(edition, view)
        table = state_table(edition)
        context: dict[str, Any] = {
            "edition": edition,
            "package": edition.protocol if edition.channel is ir.Stability.STABLE else "unstable",
            "view": view,
            "tables": tables,
            "views": session_views(edition, tables.roles),
            "table": table,
            "feeding": state_feeding(table),
            "schema_version": spec.version,
            "origin": spec.origin,
            **project,
        }
        for kind in EDITION_FILES:
            out.render(out_dir / edition.key / f"{kind}.go", f"{kind}.go.jinja", **context)
        out.render(
            out_dir / edition.key / "builders.go",
            "builders.go.jinja",
            builders=builders_view(view, context["tables"]),
            **context,
        )
        for role in context["tables"].roles:
            out.render(
                out_dir / edition.key / f"{role.role.name}.go",
                "role.go.jinja",
                r=role,
                **context,
            )


def template_environment() -> jinja2.Environment:
    filters = {"gostr": go_string, "golit": _literal, "gojson": go_json_text, "go_name": go_name}
    more = {"doc_lines": doc_lines, "json_members": _json_members, "prefix": _prefix}
    return templating.template_environment(TEMPLATES, {**filters, **more})


def _prefix(text: str, prefix: str) -> str:
    return prefix + text


def _literal(value: str | int) -> str:
    """A constant's Go literal: a string quoted, an integer as it is."""
    return go_string(value) if isinstance(value, str) else str(value)


def _json_members(constants: tuple[FieldView, ...]) -> str:
    """A struct's constant members as JSON object members, in a Go string literal
    (`"type":"text"`), written before its fields."""
    members = [
        json.dumps(f.wire_name, ensure_ascii=False)
        + ":"
        + json.dumps(f.constant, ensure_ascii=False)
        for f in constants
    ]
    return go_text(",".join(members)) if members else '""'
