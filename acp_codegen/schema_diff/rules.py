"""The behaviour rules that start or stop applying between two editions, and the rules whose
schema text went under review (`acp-codegen diff`'s "Behaviour rules" section).

A rule applies where an edition has what it is about (`acp_codegen.lowering.behaviour`). A rule
that starts applying is behaviour an SDK of the new schema carries out (the generator renders it);
one that stops is behaviour it no longer has a subject for. Neither breaks an implementer on its
own: the method, field or type changes that cause them are reported (and judged) as such.
"""

from __future__ import annotations

from acp_codegen import ir
from acp_codegen.schema_diff.changes import Change


def rule_changes(old: ir.Edition, new: ir.Edition) -> list[Change]:
    """`rule-starts`, `rule-stops` and `rule-review` changes, by rule name."""
    before = {r.name: r for r in old.behaviour.rules}
    after = {r.name: r for r in new.behaviour.rules}
    why = {r.name: r.reason for r in new.behaviour.absent}
    changes: list[Change] = []
    for name in sorted(before.keys() | after.keys()):
        was, now = before.get(name), after.get(name)
        if was is None and now is not None:
            changes.append(Change("rule-starts", name, now.spec, frozenset()))
        elif now is None and was is not None:
            reason = why.get(name, "another rule of its kind applies instead")
            changes.append(Change("rule-stops", name, reason, frozenset()))
        elif was is not None and now is not None:
            lost = {q.text for q in now.unconfirmed} - {q.text for q in was.unconfirmed}
            if lost:
                said = "; ".join(repr(text) for text in sorted(lost))
                changes.append(
                    Change("rule-review", name, f"the schema no longer says {said}", frozenset())
                )
    return changes
