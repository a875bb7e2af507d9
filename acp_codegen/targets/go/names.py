"""Go spellings of the IR: exported identifiers, doc comment lines, literals.

One rule names every identifier: the words of a schema name, a wire name, a tag or a method
(split as `acp_codegen.words.snake` splits them), each capitalised, except the words
`INITIALISMS` spells in Go's way (`sessionId` → `SessionID`, `McpServerHttp` →
`MCPServerHTTP`, `_meta` → `Meta`). The table is
keyed by the word's meaning (its lower-case spelling), so a schema name keeps its initialism
wherever it appears. Names are code-free: the templates write the code around them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from acp_codegen.problems import GenerationError
from acp_codegen.targets.kit.naming import MethodSpelling
from acp_codegen.words import snake

INITIALISMS = {
    "acp": "ACP",
    "api": "API",
    "ascii": "ASCII",
    "cpu": "CPU",
    "eof": "EOF",
    "html": "HTML",
    "http": "HTTP",
    "https": "HTTPS",
    "id": "ID",
    "ids": "IDs",
    "ip": "IP",
    "json": "JSON",
    "mcp": "MCP",
    "rpc": "RPC",
    "sql": "SQL",
    "sse": "SSE",
    "tcp": "TCP",
    "tls": "TLS",
    "ttl": "TTL",
    "ui": "UI",
    "uri": "URI",
    "uris": "URIs",
    "url": "URL",
    "urls": "URLs",
    "utf8": "UTF8",
    "uuid": "UUID",
    "xml": "XML",
}
"""Go's spelling of a word (by its lower-case form) where it is not just capitalised."""

GO_KEYWORDS = frozenset(
    {"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough"}
    | {"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range"}
    | {"return", "select", "struct", "switch", "type", "var"}
)
PREDECLARED = frozenset(
    {"any", "bool", "byte", "comparable", "error", "rune", "string", "uintptr"}
    | {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"}
    | {"float32", "float64", "complex64", "complex128", "true", "false", "iota", "nil"}
    | {"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make"}
    | {"max", "min", "new", "panic", "print", "println", "real", "recover"}
)
"""Go's predeclared identifiers: legal parameter names, but one would hide the type or function
in the body, so a parameter is never named so."""

_GO_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_JSON_TAG_NAME = re.compile(r"^[A-Za-z0-9!#$%&()*+\-./:;<=>?@\[\]^_{|}~ ]+$")
"""The names encoding/json accepts in a struct tag (its isValidTag)."""


def go_name(text: str) -> str:
    """An exported Go identifier for a schema name, wire name, tag or title."""
    words = [w for w in snake(text).split("_") if w]
    name = "".join(_exported_word(w) for w in words)
    if not name:
        raise GenerationError(f"no Go identifier can be made from {text!r}")
    if name[:1].isdigit():
        name = "N" + name
    return name


def go_param(text: str, reserved: Collection[str] = ()) -> str:
    """A parameter's name for a wire name: the field's Go name with its first word in lower case
    (`sessionId` → `sessionID`, `mcpServers` → `mcpServers`, `id` → `id`, `1st` → `n1St`). A
    name Go keeps (a keyword, a predeclared identifier) or one of `reserved` (the names of the
    packages the file imports) gets `_` appended: no such name is made otherwise, since the
    words are joined without `_`."""
    words = [w for w in snake(text).split("_") if w]
    if not words:
        raise GenerationError(f"no Go identifier can be made from {text!r}")
    name = words[0] + "".join(_exported_word(w) for w in words[1:])
    if name[:1].isdigit():
        name = "n" + name
    return name + "_" if name in GO_KEYWORDS or name in PREDECLARED or name in reserved else name


def _exported_word(word: str) -> str:
    return INITIALISMS.get(word, word[:1].upper() + word[1:])


def unexported(name: str) -> str:
    """`decode` + an exported name: the generated package's own helpers."""
    return "decode" + name


def json_tag_name(wire_name: str, where: str) -> str:
    """A wire name as it goes into a `json:"…"` tag; one encoding/json would ignore is an error."""
    if not _JSON_TAG_NAME.match(wire_name) or "," in wire_name:
        raise GenerationError(
            f"{where}: the wire name {wire_name!r} cannot be a Go json tag (encoding/json would "
            "ignore the tag)"
        )
    return wire_name


def go_string(value: str) -> str:
    """A Go interpreted string literal (a JSON string is one)."""
    return json.dumps(value, ensure_ascii=False)


def go_text(text: str) -> str:
    """A Go string literal holding `text`: raw (between backquotes) when it can be."""
    return "`" + text + "`" if "`" not in text and "\r" not in text else go_string(text)


def go_json_text(value: object) -> str:
    """A JSON value as a Go string literal holding its JSON text."""
    return go_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def doc_lines(text: str) -> list[str]:
    """A schema description's lines for `//` comments, in the form gofmt keeps as it is: no
    line indented (gofmt reads indented lines of a doc comment as code blocks and lists, and
    reformats them), no trailing spaces, single blank lines, none at either end."""
    lines = [line.strip() for line in text.strip().splitlines()]
    kept: list[str] = []
    for line in lines:
        if line or (kept and kept[-1]):
            kept.append(line)
    return ["# " + line if _old_heading(kept, i) else line for i, line in enumerate(kept)]


def _old_heading(lines: list[str], index: int) -> bool:
    """gofmt's rule for a heading written the old way (go/doc/comment's isOldHeading): a
    one-line paragraph between two others, starting upper case, ending in a letter or digit,
    without punctuation but `(),`, `'s` and inner dots. gofmt writes it `# heading`; so do we."""
    if index <= 0 or index + 2 >= len(lines) or lines[index - 1] or lines[index + 1]:
        return False
    line = lines[index]
    if not (line[:1].isalpha() and line[:1].isupper() and line[-1:].isalnum()):
        return False
    if any(c in line for c in ';:!?+*/=[]{}_^°&§~%#@<">\\'):
        return False
    after_quotes = [line[i + 1 :] for i, c in enumerate(line) if c == "'"]
    if any(not (rest == "s" or rest.startswith("s ")) for rest in after_quotes):
        return False
    after_dots = [line[i + 1 :] for i, c in enumerate(line) if c == "."]
    return all(rest and not rest.startswith(" ") for rest in after_dots)


def check_identifier(name: str, where: str) -> str:
    if not _GO_IDENTIFIER.match(name):
        raise GenerationError(f"{where}: {name!r} is not a Go identifier")
    return name


METHODS = MethodSpelling("Go", "name", go_name, "Notification")
"""A method's Go name (`session/prompt` → `SessionPrompt`, `$/cancel_request` →
`CancelRequest`; its constant is `Method` + it); a notification that shares its name with a
request gets `Notification`. When two names clash is the kit's one rule (`kit.naming`)."""
