"""Python target: a vendorable package `acp_protocol` of pydantic v2 models and method tables.

Output (under `out_dir`):
  acp_protocol/__init__.py, py.typed
  acp_protocol/runtime/…               hand-written, copied from templates/python/runtime/
  acp_protocol/v1/{__init__,models,methods,peers,agent,client}.py   from the stable edition
  acp_protocol/v1/unstable/…                                        from the unstable edition

Models: the edition's types → `python_schema_pass` → datamodel-code-generator (options in
`DMCG_OPTIONS`) → numbered names through `python_names.RENAMES` → open unions
(`python_unions`) → black. The two editions are generated in parallel processes.
Typed layer: `peers.py` and one module per role (`python_roles.ROLE_PAIRS`), from the method table.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import jinja2

from codegen.ir import Edition, Protocol, Stability
from codegen.targets.python_format import format_modules, format_source
from codegen.targets.python_names import apply_renames, plan_renames
from codegen.targets.python_roles import handler_name, roles_of
from codegen.targets.python_schema_pass import distribute_nested_unions
from codegen.targets.python_unions import open_unions

PACKAGE = "acp_protocol"
TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "python"
RUNTIME_SOURCES = TEMPLATES / "runtime"
# Where the models' base class is imported from while datamodel-code-generator runs; rewritten to
# a relative import so the package can be vendored under any name.
_BASE_IMPORT = f"from {PACKAGE}.runtime.model import"


def generate(ir: Protocol, out_dir: Path) -> None:
    """Write the Python package for `ir` into `out_dir` (which the caller has made empty)."""
    env = template_environment()
    header = env.get_template("header.py.jinja").render(origin=ir.origin)
    package_dir = out_dir / PACKAGE
    # (edition, its folder, the relative import of `acp_protocol.runtime` from that folder)
    editions = (
        (ir.stable, package_dir / ir.version, _runtime_import(2)),
        (ir.unstable, package_dir / ir.version / "unstable", _runtime_import(3)),
    )
    with ProcessPoolExecutor(max_workers=2) as pool:
        models_header = env.get_template("models_header.py.jinja").render(header=header)
        futures = [pool.submit(render_models, e, models_header, r) for e, _, r in editions]
        models = format_modules(futures, pool)

    _write(
        package_dir / "__init__.py",
        env.get_template("package_init.py.jinja"),
        header=header,
        package=PACKAGE,
        origin=ir.origin,
    )
    (package_dir / "py.typed").write_text("")
    for source in sorted(RUNTIME_SOURCES.glob("*.py")):
        copy_header = env.get_template("runtime_copy_header.py.jinja").render(file_name=source.name)
        _write_text(package_dir / "runtime" / source.name, copy_header + "\n" + source.read_text())

    for (edition, directory, runtime_import), models_text in zip(editions, models, strict=True):
        has_unstable = edition.stability is Stability.STABLE
        roles = roles_of(edition)
        role_modules = [role.name for role in roles]
        submodules = sorted(["methods", "models", "peers", *role_modules])
        submodules += ["unstable"] if has_unstable else []
        # Every module of an edition is rendered with the same context, plus its own.
        context = {
            "header": header,
            "version": ir.version,
            "edition": edition,
            "runtime_import": runtime_import,
            "roles": roles,
        }
        init = env.get_template("edition_init.py.jinja")
        _write(
            directory / "__init__.py",
            init,
            has_unstable=has_unstable,
            submodules=submodules,
            **context,
        )
        _write_text(directory / "models.py", models_text, formatted=True)
        _write(directory / "methods.py", env.get_template("methods.py.jinja"), **context)
        _write(directory / "peers.py", env.get_template("peers.py.jinja"), **context)
        for role in roles:
            _write(
                directory / f"{role.name}.py",
                env.get_template("role.py.jinja"),
                role=role,
                **context,
            )


def template_environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["pyrepr"] = _pyrepr
    env.filters["docstring"] = _docstring
    env.filters["handler_name"] = handler_name
    env.filters["constant_name"] = lambda method: handler_name(method).upper()
    return env


def render_models(edition: Edition, header: str, runtime_import: str) -> str:
    """The models module of one edition, not yet formatted. Runs in a worker process."""
    from datamodel_code_generator import generate as dmcg_generate

    # ACP's `uint16/uint32/uint64` formats are unknown to datamodel-code-generator, which falls back
    # to `int` (bounds still come from the schema's `minimum`); the warning is expected, per field.
    warnings.filterwarnings("ignore", message=r"format of 'uint(16|32|64)' not understood")

    defs = {t.name: dict(t.json_schema) for t in edition.types}
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": distribute_nested_unions(defs),
    }
    with tempfile.TemporaryDirectory(prefix="acp-codegen-") as tmp:
        schema_path = Path(tmp) / edition.source
        output_path = Path(tmp) / "models.py"
        metadata_path = Path(tmp) / "models.meta.json"
        schema_path.write_text(json.dumps(document, sort_keys=True))
        dmcg_generate(
            schema_path,
            output=output_path,
            emit_model_metadata=metadata_path,
            custom_file_header=header.rstrip("\n"),
            **dmcg_options(),
        )
        source = output_path.read_text()
        metadata = json.loads(metadata_path.read_text())

    generated = [
        (m["class_name"], "#" + m["source_ref"].partition("#")[2]) for m in metadata["models"]
    ]
    plan = plan_renames(generated, frozenset(defs), edition.source)
    source = apply_renames(source, plan)
    source = open_unions(source, template_environment().get_template("open_union.py.jinja"))
    return source.replace(_BASE_IMPORT, f"from {runtime_import}.model import")


def dmcg_options() -> dict[str, Any]:
    """datamodel-code-generator 0.89.0 options; see docs/python-target.md for why each is set."""
    from datamodel_code_generator import DataModelType, InputFileType, LiteralType, PythonVersion

    return {
        "input_file_type": InputFileType.JsonSchema,
        "output_model_type": DataModelType.PydanticV2BaseModel,
        "preset": "standard-py311-20261027",
        "target_python_version": PythonVersion.PY_311,
        "use_tag_as_union_variant_name": True,
        "skip_root_model": True,
        "collapse_root_models": False,
        "use_type_alias": True,
        "enum_field_as_literal": LiteralType.All,
        "base_class": f"{PACKAGE}.runtime.model.ProtocolModel",
        "allow_population_by_field_name": False,  # set once on ProtocolModel
        "aliases": {"_meta": "meta"},
        "use_schema_description": True,
        "field_extra_keys": {
            "x-deserialize-default-on-error",
            "x-deserialize-skip-invalid-items",
            "x-deserialize-default-on-null",
        },
        "additional_imports": [
            "pydantic.Discriminator",
            "pydantic.Tag",
            f"{PACKAGE}.runtime.model.UNKNOWN_VARIANT",
            f"{PACKAGE}.runtime.model.open_discriminator",
        ],
        "formatters": [],  # black runs once, after our passes
        # `format: uri` as plain `str`, not pydantic's AnyUrl: AnyUrl rewrites what the peer sent
        # ("https://example.com" comes back "https://example.com/", spaces percent-encoded), and
        # importing it costs ~10 ms (pydantic.networks pulls in importlib.metadata).
        "type_mappings": ["string+uri=string"],
        # Evaluated annotations, strings only for forward references: a faster import (pydantic
        # compiles and evaluates every string annotation when the class is created).
        "disable_future_imports": True,
    }


def _runtime_import(depth: int) -> str:
    return "." * depth + "runtime"


def _pyrepr(value: object) -> str:
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
