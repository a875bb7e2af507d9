"""The level rule (layer: data): a case's level comes only from the words of the text it quotes.

RFC 2119 words, in capitals as the specifications write them: MUST, MUST NOT, REQUIRED, SHALL
and SHALL NOT give MUST; SHOULD, SHOULD NOT, RECOMMENDED and NOT RECOMMENDED give SHOULD;
anything else (MAY, OPTIONAL, lower-case words, a description) is informative. Markdown emphasis
(`**MUST NOT**`) is read through.

A case may be informative although its quote carries MUST or SHOULD, when the words bind
someone else (the Client's MUST) or when what the case checks is the suite's own reading (a
deadline, a size, an order no text states): its title or its quote's source then says
`INFORMATIVE` and why. acp-codegen reads schema text with the same rule
(acp_codegen/targets/python/conformance_schema.py: `level`); tests/conformance/test_levels.py
checks that both agree and that every case obeys it.
"""

from __future__ import annotations

import re

from .data import Level

_MUST = re.compile(r"\b(?:MUST|REQUIRED|SHALL)\b")
_SHOULD = re.compile(r"\b(?:SHOULD|RECOMMENDED)\b")

INFORMATIVE = "informative:"
"""What a case's title or quote source says when the case is informative although its quote's
words are not (followed by why: "informative: the size is the suite's own reading")."""
SUITES_READING = "informative: the suite's own reading"
"""The usual reason: what the case checks beyond the text (a deadline, a size, an order)."""


def level_of(text: str) -> Level:
    """The level `text`'s own words carry: MUST, SHOULD or informative."""
    plain = text.replace("*", "")
    if _MUST.search(plain):
        return "MUST"
    if _SHOULD.search(plain):
        return "SHOULD"
    return "informative"


def says_why_informative(*texts: str) -> bool:
    """Whether a case's title or quote source says it is informative by design."""
    return any(INFORMATIVE in text for text in texts)
