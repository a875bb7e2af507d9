"""Identifier words: split a wire name, a tag or a title into words and join them by a case rule.

Shared by lowering (definition names) and targets (attribute names), so both split alike.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def pascal(text: str) -> str:
    """`agent_message_chunk` → `AgentMessageChunk`, `Parse error` → `ParseError`,
    `readTextFile` → `ReadTextFile`, `HTTP` → `Http`."""
    words = _WORD.findall(text)
    name = "".join(w[:1].upper() + w[1:].lower() for w in words)
    if name[:1].isdigit():
        name = "N" + name
    return name


def snake(text: str) -> str:
    """`sessionId` → `session_id`, `_meta` → `meta`, `mimeType` → `mime_type`."""
    words: list[str] = []
    for word in _WORD.findall(text):
        if word.isdigit() and words:
            words[-1] += word  # `sha256` stays `sha256`
        else:
            words.append(word.lower())
    return "_".join(words)
