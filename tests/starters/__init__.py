"""The starter programs of `acp-codegen scaffold` (3 languages x v1/v2 x agent/client), built and
run against each other and against the official TypeScript SDK's agents."""
