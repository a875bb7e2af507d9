"""Tools of this repository that are not the generator: the conformance field
(`conformance_field`, `make conformance`) and the crate schema writer (crate-schema/, Rust)."""
