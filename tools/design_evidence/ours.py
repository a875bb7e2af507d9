"""Our generator on the same schemas (layer: evidence): what the IR keeps of each schema's
annotations, what our generated Python models do with the probe's messages, and the time of
one schema → Python models run.

`python -m tools.design_evidence.ours SCHEMA OUT` is that timed run: load, validate, lower, and
write the edition's models modules into OUT (the job datamodel-code-generator does; the rest of
the Python package, the method table, roles and the runtime, is left out), in a process of its
own as datamodel-code-generator's is.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from acp_codegen import ir
from acp_codegen.ir import Stability
from acp_codegen.loader import load_schema
from acp_codegen.lowering import lower_edition
from acp_codegen.lowering.behaviour import RULES
from acp_codegen.targets.python import render_models
from acp_codegen.validation import validate_schema
from tools.design_evidence.probe import SAMPLES
from tools.design_evidence.theirs import Timed, timed

ROOT = Path(__file__).resolve().parents[2]
NUMBERED = re.compile(r"[A-Za-z]\d+$")


def schema_facts(doc: dict[str, Any]) -> dict[str, int]:
    """The annotations a schema carries, counted in its text."""
    text = json.dumps(doc)
    return {
        "defs": len(doc["$defs"]),
        "x_method": text.count('"x-method"'),
        "x_side": text.count('"x-side"'),
        "x_state": text.count('"x-state"'),
        "discriminator": text.count('"discriminator"'),
        "lenient_decoding": len(re.findall(r'"x-deserialize-[a-z-]+"', text)),
    }


def ir_facts(edition: ir.Edition) -> dict[str, Any]:
    """What the IR made of one edition."""
    unions = [d for d in edition.definitions if isinstance(d, ir.TaggedUnion)]
    fields = {"required": 0, "required_nullable": 0, "optional_nullable": 0, "optional": 0}
    for definition in edition.definitions:
        if isinstance(definition, ir.Struct):
            for field in definition.fields:
                kind = ("required" if field.required else "optional") + (
                    "_nullable" if field.nullable else ""
                )
                fields[kind] += 1
    return {
        "definitions": len(edition.definitions),
        "numbered_names": sum(bool(NUMBERED.search(d.name)) for d in edition.definitions),
        "methods": len(edition.methods),
        "requests": sum(m.kind is ir.MethodKind.REQUEST for m in edition.methods),
        "notifications": sum(m.kind is ir.MethodKind.NOTIFICATION for m in edition.methods),
        "tagged_unions": len(unions),
        "tags_inferred": sum(not u.tags_declared for u in unions),
        "state_annotations": len(edition.state),
        "state_from_schema": sum(a.rule is None for a in edition.state),
        "fields": fields,
    }


def lowered(
    schema: Path, protocol: str, channel: Stability, *, validate: bool = True
) -> ir.Edition:
    """One schema lowered as the pipeline lowers it; `validate` False skips the metaschema check
    (half the time; the pinned schemas are checked by every generation)."""
    doc = load_schema(schema)
    problems = validate_schema(doc, schema.name) if validate else []
    if problems:
        raise RuntimeError(f"{schema.name}: {problems[0]}")
    return lower_edition(
        doc, protocol=protocol, channel=channel, source=schema.name, sha256="", rules=RULES
    )


def model_behaviour(protocol: str) -> dict[str, Any]:
    """Our generated models (`acp_protocol.<protocol>.models`) on the probe's messages."""
    from pydantic import TypeAdapter, ValidationError

    models = importlib.import_module(f"acp_protocol.{protocol}.models")
    adapter: TypeAdapter[Any] = TypeAdapter(models.SessionUpdate)
    union = {}
    for name, sample in SAMPLES.items():
        try:
            union[name] = type(adapter.validate_python(sample)).__name__
        except ValidationError as error:
            union[name] = f"{error.error_count()} errors"
    info = models.SessionInfoUpdate
    return {
        "union": union,
        "to_wire": [
            info.model_validate({"title": None}).to_wire(),
            info.model_validate({}).to_wire(),
        ],
    }


RULE_BOOK = ROOT / "tests" / "wire" / "envelope_corpus.json"
RULE_BOOK_CASES = (
    "request_with_id_beyond_2_53_is_answered_with_that_exact_id",
    "truncated_frame_is_a_parse_error_with_null_id",
    "invalid_utf8_is_a_parse_error_with_null_id",
    "batch_of_one_request_is_one_invalid_request_with_null_id",
    "empty_line_is_ignored",
)
"""The cases docs/design.md names."""


def rule_book() -> dict[str, Any]:
    """The envelope rule book every runtime passes: how many cases, and those the page names."""
    cases = json.loads(RULE_BOOK.read_text(encoding="utf-8"))["cases"]
    names = {case["name"] for case in cases}
    return {
        "path": str(RULE_BOOK.relative_to(ROOT)),
        "cases": len(cases),
        "parse_errors": sum("parse_error" in name for name in names),
        "named": [name for name in RULE_BOOK_CASES if name in names],
    }


def timed_run(schema: Path) -> Timed:
    """`python -m tools.design_evidence.ours SCHEMA OUT`, timed."""
    with tempfile.TemporaryDirectory() as out:
        run = timed([sys.executable, "-m", "tools.design_evidence.ours", str(schema), out], ROOT)
    if run.done.returncode != 0:
        raise RuntimeError(f"ours failed on {schema.name}: {run.done.stderr.strip()[-500:]}")
    return run


def main(schema: str, out: str) -> None:
    path = Path(schema)
    channel = Stability.UNSTABLE if "unstable" in path.name else Stability.STABLE
    edition = lowered(path, path.parent.name, channel)
    header = f"# Generated from {path.name} by tools/design_evidence (timing only).\n"
    for name, text in render_models(edition, header, "acp_protocol.runtime").items():
        target = Path(out) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
