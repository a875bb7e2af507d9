"""`_meta` merge and tri-state `session_info_update` application (issue 5's pure core)."""

from __future__ import annotations

import copy
from typing import Any

from acp_protocol.runtime.session_info import (
    SessionInfo,
    apply_session_info_update,
    merge_meta,
)
from hypothesis import given
from hypothesis import strategies as st

leaves = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)
objects = st.dictionaries(st.text(max_size=3), values, max_size=5)


def without_nulls(value: Any) -> Any:
    """What a stored `_meta` can hold: merging never stores a null member."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    return value


stored_objects = objects.map(without_nulls)


@given(stored_objects)
def test_merging_an_empty_patch_changes_nothing(stored: dict[str, Any]) -> None:
    assert merge_meta(stored, {}) == stored


@given(stored_objects, objects)
def test_applying_the_same_patch_twice_equals_applying_it_once(
    stored: dict[str, Any], patch: dict[str, Any]
) -> None:
    once = merge_meta(stored, patch)
    assert merge_meta(once, patch) == once


@given(stored_objects, st.text(max_size=3))
def test_a_null_leaf_removes_exactly_that_key(stored: dict[str, Any], key: str) -> None:
    merged = merge_meta(stored, {key: None})
    assert key not in merged
    assert merged == {k: v for k, v in stored.items() if k != key}


def test_nested_objects_merge_and_non_objects_replace() -> None:
    stored = {"zed.dev": {"color": "red", "pinned": True}, "tags": ["a"], "n": 1}
    patch = {"zed.dev": {"color": "blue", "pinned": None}, "tags": ["b"], "n": {"x": 1}}
    assert merge_meta(stored, patch) == {"zed.dev": {"color": "blue"}, "tags": ["b"], "n": {"x": 1}}


@given(stored_objects, st.text(max_size=3), stored_objects, objects)
def test_a_nested_object_merges_into_the_stored_object_key_by_key(
    stored: dict[str, Any], key: str, inner: dict[str, Any], inner_patch: dict[str, Any]
) -> None:
    merged = merge_meta({**stored, key: inner}, {key: inner_patch})
    assert merged[key] == merge_meta(inner, inner_patch)


@given(
    stored_objects, st.text(max_size=3), leaves.filter(lambda v: v is not None) | st.lists(leaves)
)
def test_a_non_object_value_replaces_whatever_was_stored(
    stored: dict[str, Any], key: str, value: Any
) -> None:
    assert merge_meta(stored, {key: value})[key] == value


@given(stored_objects, objects)
def test_inputs_are_never_mutated_nor_shared(stored: dict[str, Any], patch: dict[str, Any]) -> None:
    stored_before, patch_before = copy.deepcopy(stored), copy.deepcopy(patch)
    merged = merge_meta(stored, patch)
    assert (stored, patch) == (stored_before, patch_before)
    for value in merged.values():  # changing the result never reaches an input
        if isinstance(value, list | dict):
            value.clear()
    assert (stored, patch) == (stored_before, patch_before)


def test_absent_null_and_value_are_three_different_updates() -> None:
    """ "omitted fields are left unchanged"; "Set to `null` to clear"."""
    info = SessionInfo(title="old", updated_at="2026-11-21T00:00:00Z", meta={"a": 1})
    assert apply_session_info_update(info, {}) == info
    assert apply_session_info_update(info, {"title": None}).title is None
    assert apply_session_info_update(info, {"title": "t"}).title == "t"


def test_meta_null_clears_all_and_policies_differ() -> None:
    info = SessionInfo(meta={"a": {"b": 1, "c": 2}})
    assert apply_session_info_update(info, {"_meta": None}).meta is None
    patch = {"_meta": {"a": {"b": None}}}
    assert apply_session_info_update(info, patch).meta == {"a": {"c": 2}}
    assert apply_session_info_update(info, patch, "replace").meta == {"a": {"b": None}}


def test_a_field_of_the_wrong_type_is_dropped_and_the_rest_applies() -> None:
    """x-deserialize-default-on-error: a numeric title is treated as absent."""
    info = SessionInfo(title="keep")
    updated = apply_session_info_update(info, {"title": 42, "updatedAt": "2026-11-21T08:00:00Z"})
    assert updated == SessionInfo(title="keep", updated_at="2026-11-21T08:00:00Z")


def test_three_updates_in_order() -> None:
    """The worked example: each update applies to the result of the one before."""
    info = SessionInfo()
    info = apply_session_info_update(info, {"title": "Fix CI", "_meta": {"zed.dev": {"pin": True}}})
    assert info == SessionInfo("Fix CI", None, {"zed.dev": {"pin": True}})
    info = apply_session_info_update(info, {"_meta": {"zed.dev": {"color": "red"}, "x": 1}})
    assert info.meta == {"zed.dev": {"pin": True, "color": "red"}, "x": 1}
    info = apply_session_info_update(info, {"title": None, "_meta": {"zed.dev": {"pin": None}}})
    assert info == SessionInfo(None, None, {"zed.dev": {"color": "red"}, "x": 1})
