# Copied by acp-codegen from templates/python/runtime/session_info.py. Do not edit here:
# edit the source, then run `make generate`.

"""`session_info_update` semantics: tri-state fields and the `_meta` merge, as pure functions.

Layer: typed layer (pure helpers of `SessionStore`).

For each of `title`, `updatedAt` and `_meta`: absent means unchanged, `null` clears it, a value
sets it ("Only include fields that have changed — omitted fields are left unchanged"; "Set to
`null` to clear", ACP `session-list.mdx`). Updates apply in arrival order.

A `_meta` object is applied by one of three policies; each edition names its own
(`behaviour.BEHAVIOUR.meta_policy`, from the IR's rule table):
- `"merge"` (v1's default; the session-info-update RFD's semantics before PR #1573): merged into
  the stored object recursively — nested objects merge, a `null` leaf deletes that key, any other
  value replaces (the rules of RFC 7396 JSON Merge Patch);
- `"replace"` (the stabilized v1 text: "a metadata object for clients and extensions to
  interpret"): the object replaces the stored one;
- `"patch"` (v2, `SessionInfoUpdate._meta`): "An object patches the stored metadata by top-level
  key: keys it omits are unchanged, a key set to `null` is removed, and any other value replaces
  that key's stored value without merging nested objects."
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .behaviour import MetaPolicy

META_POLICIES: tuple[MetaPolicy, ...] = ("merge", "replace", "patch")


def merge_meta(stored: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """`stored` with `patch` merged in recursively; neither input is changed or shared.

    A `null` in `patch` deletes that key; an object merges into the stored object (or into `{}`
    when the stored value is not an object); any other value replaces.
    """
    merged = copy.deepcopy(dict(stored))
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping):
            base = merged.get(key)
            merged[key] = merge_meta(base if isinstance(base, Mapping) else {}, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def patch_meta(stored: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """`stored` patched by top-level key (v2): a `null` removes the key, any other value
    replaces it whole (nested objects are not merged); neither input is changed or shared."""
    patched = copy.deepcopy(dict(stored))
    for key, value in patch.items():
        if value is None:
            patched.pop(key, None)
        else:
            patched[key] = copy.deepcopy(value)
    return patched


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What a session's info updates have set so far (None: not set, or cleared)."""

    title: str | None = None
    updated_at: str | None = None
    meta: dict[str, Any] | None = None


def apply_session_info_update(
    info: SessionInfo, update: Mapping[str, Any], policy: MetaPolicy = "merge"
) -> SessionInfo:
    """`info` after one `session_info_update` (its wire form: `title`, `updatedAt`, `_meta`).

    A field of the wrong type is dropped and the rest applies ("x-deserialize-default-on-error").
    """
    title, updated_at, meta = info.title, info.updated_at, info.meta
    if "title" in update and _is_optional(update["title"], str):
        title = update["title"]
    if "updatedAt" in update and _is_optional(update["updatedAt"], str):
        updated_at = update["updatedAt"]
    if "_meta" in update and _is_optional(update["_meta"], Mapping):
        patch = update["_meta"]
        if patch is None:
            meta = None
        elif policy == "replace":
            meta = copy.deepcopy(dict(patch))
        elif policy == "patch":
            meta = patch_meta(meta or {}, patch)
        else:
            meta = merge_meta(meta or {}, patch)
    return SessionInfo(title, updated_at, meta)


def _is_optional(value: Any, kind: type) -> bool:
    return value is None or isinstance(value, kind)
