package acp

import (
	"encoding/base64"
	"strings"
)

// Layer: typed layer (pure data). The JSON values a client state holds, and the path reader and
// writer its four actions share (session_state.go).
//
// A message's values (map[string]any, []any, string, json.Number or float64, bool, nil) are
// never changed: the state keeps them as they came. A container the state made itself by a
// write is an ownedObject or an ownedList: only the state holds it (everything the state hands
// out is a deep copy as plain JSON, copyJSON), so a later write changes it in place instead of
// copying it again (a chunk appended to a message of many chunks costs one item, not the list).

type ownedObject map[string]any

// ownedList is held by pointer: an item appended to it changes no object holding it.
type ownedList struct {
	items []any
}

// asObject is value as an object (a message's, or one the state made).
func asObject(value any) (map[string]any, bool) {
	switch object := value.(type) {
	case map[string]any:
		return object, true
	case ownedObject:
		return object, true
	}
	return nil, false
}

// asList is value as a list (a message's, or one the state made).
func asList(value any) ([]any, bool) {
	switch list := value.(type) {
	case []any:
		return list, true
	case *ownedList:
		return list.items, true
	}
	return nil, false
}

// read is the value at the path keys of value (false where absent).
func read(value any, keys []string) (any, bool) {
	for _, key := range keys {
		object, ok := asObject(value)
		if !ok {
			return nil, false
		}
		if value, ok = object[key]; !ok {
			return nil, false
		}
	}
	return value, true
}

// written is value (an object, or {}) with v at the path keys (present false: removed): an
// object the state made is changed in place, any other is copied into one the state owns, along
// the path.
func written(value any, keys []string, v any, present bool) any {
	out := owned(value)
	switch {
	case len(keys) == 0:
	case len(keys) > 1:
		out[keys[0]] = written(out[keys[0]], keys[1:], v, present)
	case present:
		out[keys[0]] = v
	default:
		delete(out, keys[0])
	}
	return out
}

// owned is value if the state made it, else a copy of its members ({} when not an object).
func owned(value any) ownedObject {
	if object, ok := value.(ownedObject); ok {
		return object
	}
	object, _ := asObject(value)
	out := make(ownedObject, len(object)+1)
	for name, member := range object {
		out[name] = member
	}
	return out
}

var pointerEscapes = strings.NewReplacer("~", "~0", "/", "~1")

// pointerOf is the JSON pointer of the path keys under base.
func pointerOf(base string, keys []string) string {
	var b strings.Builder
	b.WriteString(base)
	for _, key := range keys {
		b.WriteByte('/')
		b.WriteString(pointerEscapes.Replace(key))
	}
	return b.String()
}

func appendable(current any, present bool, value any, encoding string) bool {
	if encoding == stateBase64 {
		if !present || current == nil {
			current = ""
		}
		text, ok := value.(string)
		stored, isString := current.(string)
		return ok && isString && decodes(text) && decodes(stored)
	}
	if !present || current == nil {
		return true
	}
	_, isList := asList(current)
	_, isString := current.(string)
	_, valueIsString := value.(string)
	return isList || (isString && valueIsString)
}

// appended is current with value appended (checked by appendable): bytes joined, a string
// onto a string, an item onto a list (the state's own list grows in place).
func appended(current any, present bool, value any, encoding string) any {
	if encoding == stateBase64 {
		stored, _ := current.(string)
		joined, _ := base64.StdEncoding.DecodeString(stored)
		more, _ := base64.StdEncoding.DecodeString(value.(string))
		return base64.StdEncoding.EncodeToString(append(joined, more...))
	}
	if text, ok := value.(string); ok {
		if stored, isString := current.(string); isString {
			return stored + text
		}
		if !present || current == nil {
			return text
		}
	}
	if list, ok := current.(*ownedList); ok {
		list.items = append(list.items, value)
		return list
	}
	list, _ := asList(current)
	out := make([]any, len(list), 2*len(list)+4)
	copy(out, list)
	return &ownedList{append(out, value)}
}

// decodes is whether text is standard, padded base64 ("Independently base64-encoded terminal
// output bytes", TerminalOutputChunk.data); line breaks are not part of it.
func decodes(text string) bool {
	if strings.ContainsAny(text, "\r\n") {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(text)
	return err == nil
}

// copyJSON is a deep copy of a JSON value the state holds, as plain JSON.
func copyJSON(value any) any {
	switch v := value.(type) {
	case map[string]any:
		return copyObject(v)
	case ownedObject:
		return copyObject(v)
	case []any:
		return copyList(v)
	case *ownedList:
		return copyList(v.items)
	}
	return value
}

func copyObject(object map[string]any) map[string]any {
	out := make(map[string]any, len(object))
	for name, member := range object {
		out[name] = copyJSON(member)
	}
	return out
}

func copyList(list []any) []any {
	out := make([]any, len(list))
	for i, item := range list {
		out[i] = copyJSON(item)
	}
	return out
}

// metaOf is a _meta object applied to the stored one by the edition's policy: patch (v2) "by
// top-level key: keys it omits are unchanged, a key set to `null` is removed, and any other
// value replaces that key's stored value without merging nested objects"; merge (v1)
// recursively, as RFC 7396; replace whole.
func (s *SessionState) metaOf(stored any, given map[string]any) any {
	if s.meta != MetaMerge && s.meta != MetaPatch {
		return given
	}
	out := owned(stored) // nothing stored (or no object): onto {}, so a `null` key goes too
	for name, value := range given {
		nested, isObject := asObject(value)
		switch {
		case value == nil:
			delete(out, name)
		case s.meta == MetaMerge && isObject:
			base, ok := asObject(out[name])
			if !ok {
				base = map[string]any{}
			}
			out[name] = s.metaOf(base, nested)
		default:
			out[name] = value
		}
	}
	return out
}

func isObjectValue(value any) bool {
	_, ok := asObject(value)
	return ok
}
