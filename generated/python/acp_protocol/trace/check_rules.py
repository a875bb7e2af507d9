# Copied by acp-codegen from templates/python/trace/check_rules.py. Do not edit here:
# edit the source, then run `make generate`.

"""The rules a recording is judged by (layer: data): the conformance suite's own cases, by id,
and the passive rules no active case checks (`acp_protocol.conformance`'s `passive.json`).

One rule, one place: a violation carries the case id, level and quote the suite gives that
case (`python -m acp_protocol.conformance agent|client --list` lists them); which of the suite's
cases a recording can judge is passive.json's `suiteCases` (globs of case ids), and a rule only
a recording can judge has its entry there under `rules`, its level from its quote's words.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from ..conformance.client_runner import all_client_cases
from ..conformance.data import EditionData, Level, Quote
from ..conformance.levels import level_of, says_why_informative
from ..conformance.runner import Edition, all_cases, load_edition

Side = Literal["agent", "client"]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    level: Level
    quote: Quote
    title: str
    side: Side


@cache
def _passive() -> dict[str, Any]:
    path = Path(__file__).parent.parent / "conformance" / "passive.json"
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def passive_entries() -> tuple[dict[str, Any], ...]:
    """The entries of the suite's passive.json: the rules no case of the suite checks."""
    return tuple(_passive()["rules"])


def suite_case_globs() -> tuple[str, ...]:
    """passive.json's `suiteCases`: globs of the suite's case ids a recording can judge."""
    return tuple(_passive()["suiteCases"])


def judged_in_part(case_id: str) -> str | None:
    """Why a recording shows the suite's case `case_id` only in part (passive.json's
    `suiteCasesInPart`: the suite also fails what did not happen within its deadline), or None
    when it shows all the suite judges."""
    reason: str | None = _passive()["suiteCasesInPart"].get(case_id)
    return reason


def judged_by_a_recording(case_id: str) -> bool:
    """Whether `trace check` judges the suite's case `case_id` (passive.json's `suiteCases`)."""
    return any(fnmatch.fnmatchcase(case_id, glob) for glob in suite_case_globs())


class Rules:
    """Every rule of one edition a recording can judge, by case id: the suite's cases that
    passive.json's `suiteCases` names, its passive rules, and a client's call of an agent
    method the agent did not advertise."""

    def __init__(self, key: str) -> None:
        self.edition: Edition = load_edition(key)
        self.key = key
        found: dict[str, Rule] = {}
        for case in all_cases(self.edition.data):
            if judged_by_a_recording(case.id):
                found[case.id] = Rule(case.id, case.level, case.quote, case.title, "agent")
        for case in all_client_cases(self.edition):
            if judged_by_a_recording(case.id):
                found[case.id] = Rule(case.id, case.level, case.quote, case.title, "client")
        for entry in passive_entries():
            if key in entry.get("editions", [key]):
                quote = Quote(entry["quote"], entry["source"])
                found[entry["id"]] = Rule(
                    entry["id"], entry["level"], quote, entry["title"], entry["side"]
                )
        for capability in self.edition.data.capabilities:
            # a client calling an agent method the agent did not advertise: the capability's
            # own description is the rule (as `capabilities.served_is_advertised.*` quotes it)
            case_id = f"client.output.unadvertised.{capability.method}"
            title = (
                f"{capability.method} only to an agent that advertised "
                f"{'.'.join(capability.path)}"
            )
            found[case_id] = Rule(
                case_id, _level(capability.quote), capability.quote, title, "client"
            )
        self.by_id = found

    @property
    def data(self) -> EditionData:
        return self.edition.data

    def get(self, case_id: str) -> Rule | None:
        return self.by_id.get(case_id)


def _level(quote: Quote) -> Level:
    return "informative" if says_why_informative(quote.source) else level_of(quote.text)


@cache
def rules_for(key: str) -> Rules:
    return Rules(key)
