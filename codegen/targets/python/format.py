"""Black, pinned and run once over everything the Python target writes, spread over CPU cores.

A large module is cut into chunks just before top-level `class` statements. Black formats each
top-level statement on its own and puts exactly two blank lines before a top-level class, so
formatting the chunks separately and joining them with two blank lines gives the same bytes as
formatting the whole module (checked by the byte-identical regeneration and golden tests).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from concurrent.futures import Executor, Future, as_completed
from itertools import pairwise

import black

BLACK_MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY311})
CHUNK_LINES = 1500


def format_source(source: str) -> str:
    return black.format_str(source, mode=BLACK_MODE)


def split_at_classes(source: str, chunk_lines: int = CHUNK_LINES) -> list[str]:
    """Cut `source` before top-level classes into pieces of roughly `chunk_lines` lines."""
    lines = source.splitlines(keepends=True)
    cuts = [0]
    for node in ast.parse(source).body:
        start = node.lineno - 1 - len(getattr(node, "decorator_list", []))
        if isinstance(node, ast.ClassDef) and start - cuts[-1] >= chunk_lines:
            cuts.append(start)
    cuts.append(len(lines))
    return ["".join(lines[a:b]) for a, b in pairwise(cuts)]


def format_modules(sources: Sequence[Future[str]], pool: Executor) -> list[str]:
    """Format modules still being produced on `pool`, chunked; each module's chunks are queued as
    soon as it is ready. Results in the order of `sources`."""
    chunk_futures: dict[Future[str], list[Future[str]]] = {}
    for done in as_completed(sources):
        chunk_futures[done] = [
            pool.submit(format_source, c) for c in split_at_classes(done.result())
        ]
    return ["\n\n".join(f.result() for f in chunk_futures[source]) for source in sources]
