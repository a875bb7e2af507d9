"""The target kit: the rules every language target applies alike, written once.

- `naming`: how a method gets its name in a target (the notification suffix) and the one clash
  rule, reported as problems with a location;
- `roles`: the IR's roles as a typed layer names them (`Agent`, `AgentPeer`, `AgentContext`, …);
- `fields`: a struct's fields flattened with its bases';
- `files`: writing a target's files and copying its hand-written sources under a header;
- `scaffold`: the preamble of every starter (the edition, the role, the command that wrote it).

A target passes what is its own as data: its spelling of a method name, the names its runtime
reserves, its formatter, its header templates. Nothing here knows a language.
"""
