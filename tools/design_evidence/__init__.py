"""The evidence behind docs/design.md (layer: tooling, never part of a generated package):
datamodel-code-generator and our generator on the same pinned schemas, the envelope rule book,
the generated manifests. `python -m tools.design_evidence` writes `evidence.json`."""
