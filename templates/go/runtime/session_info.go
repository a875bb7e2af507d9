package acp

import (
	"bytes"
	"encoding/json"
	"maps"
)

// SessionInfo is what a session's session_info_update notifications have set so far: each field
// absent when it was never set or was cleared. Layer: typed layer (what a client's mirror of a
// session, or an agent's store, keeps).
type SessionInfo struct {
	Title     *string
	UpdatedAt *string
	Meta      map[string]json.RawMessage
}

// MetaPolicyOf is the _meta policy an edition's Behaviour gives updates of the schema type
// typeName (SessionInfoUpdate); MetaMerge when it names none.
func MetaPolicyOf(b Behaviour, typeName string) MetaPolicy {
	for _, rule := range b.Meta {
		if rule.Type == typeName {
			return rule.Policy
		}
	}
	return MetaMerge
}

// ApplySessionInfoUpdate is info after one session_info_update, given in its wire form (the
// update object, or any struct that marshals to it). For each of title, updatedAt and _meta:
// absent leaves it unchanged, null clears it, a value sets it ("Only include fields that have
// changed"; "Set to null to clear", session-list.mdx); a member of the wrong type is dropped and
// the rest applies. A _meta object applies by policy: MetaMerge recursively (RFC 7396: nested
// objects merge, a null leaf removes its key), MetaPatch by top-level key (null removes, any
// other value replaces whole), MetaReplace whole. info is not changed.
func ApplySessionInfoUpdate(info SessionInfo, update any, policy MetaPolicy) (SessionInfo, error) {
	raw, err := paramsJSON(update)
	if err != nil {
		return info, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return info, err
	}
	next := SessionInfo{Title: info.Title, UpdatedAt: info.UpdatedAt, Meta: info.Meta}
	applyText(members, "title", &next.Title)
	applyText(members, "updatedAt", &next.UpdatedAt)
	if value, ok := members["_meta"]; ok {
		var patch map[string]json.RawMessage
		switch {
		case isNull(value):
			next.Meta = nil
		case json.Unmarshal(value, &patch) != nil || patch == nil: // not an object: dropped
		case policy == MetaReplace:
			next.Meta = patch
		case policy == MetaPatch:
			next.Meta = patchMeta(info.Meta, patch)
		default:
			next.Meta = mergeMeta(info.Meta, patch)
		}
	}
	return next, nil
}

func applyText(members map[string]json.RawMessage, name string, field **string) {
	value, ok := members[name]
	if !ok {
		return
	}
	var text string
	switch {
	case isNull(value):
		*field = nil
	case json.Unmarshal(value, &text) == nil:
		*field = &text
	}
}

func isNull(value json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(value), []byte("null"))
}

// patchMeta is stored patched by top-level key; stored is not changed.
func patchMeta(stored, patch map[string]json.RawMessage) map[string]json.RawMessage {
	patched := maps.Clone(stored)
	if patched == nil {
		patched = map[string]json.RawMessage{}
	}
	for key, value := range patch {
		if isNull(value) {
			delete(patched, key)
		} else {
			patched[key] = value
		}
	}
	return patched
}

// mergeMeta is stored with patch merged in recursively (RFC 7396); stored is not changed.
func mergeMeta(stored, patch map[string]json.RawMessage) map[string]json.RawMessage {
	merged := maps.Clone(stored)
	if merged == nil {
		merged = map[string]json.RawMessage{}
	}
	for key, value := range patch {
		var inner map[string]json.RawMessage
		switch {
		case isNull(value):
			delete(merged, key)
		case json.Unmarshal(value, &inner) == nil && inner != nil:
			var base map[string]json.RawMessage
			_ = json.Unmarshal(merged[key], &base) // not an object: merged into {}
			merged[key], _ = json.Marshal(mergeMeta(base, inner))
		default:
			merged[key] = value
		}
	}
	return merged
}
