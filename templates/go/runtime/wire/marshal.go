package wire

// Layer: typed layer (MarshalObject: constants first, Extra last).

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// Marshal is encoding/json's Marshal without HTML escaping (`<`, `>` and `&` are written as
// they are: what was read is written back). A value of a type this module generates is asked
// for its JSON directly: its MarshalJSON writes compact JSON (MarshalObject, MarshalRaw), which
// encoding/json would only check and compact again, a full pass over the bytes per level.
func Marshal(value any) ([]byte, error) {
	if marshaler, ok := value.(json.Marshaler); ok && generated(value) {
		return marshaler.MarshalJSON()
	}
	var buffer bytes.Buffer
	encoder := json.NewEncoder(&buffer)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buffer.Bytes(), []byte("\n")), nil
}

// module is this module's path ("acp-protocol-sdk"), read from a type of this package.
var module = strings.TrimSuffix(reflect.TypeOf(JSONNull{}).PkgPath(), "/wire")

// generated says whether value is of a (non-pointer) type declared in this module: its
// MarshalJSON is generated or this package's.
func generated(value any) bool {
	path := reflect.TypeOf(value).PkgPath()
	return path == module || strings.HasPrefix(path, module+"/")
}

// MarshalRaw writes a kept JSON value compacted (null when there is none): a value read from a
// Content-Length frame may hold newlines, which an NDJSON frame cannot.
func MarshalRaw[T ~[]byte](value T) ([]byte, error) {
	if value == nil {
		return []byte("null"), nil
	}
	var out bytes.Buffer
	out.Grow(len(value))
	if err := json.Compact(&out, value); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// MarshalObject writes a generated struct: constants first (its tags, `"type":"text"`, already
// JSON), then its fields (plain: the struct as a type without methods, so its json tags apply,
// `omitzero` leaving absent fields out), then the members extra kept, by key.
func MarshalObject(constants string, plain any, extra Extra) ([]byte, error) {
	body, err := Marshal(plain)
	if err != nil {
		return nil, err
	}
	if constants == "" && len(extra) == 0 {
		return body, nil
	}
	out := make([]byte, 0, len(body)+len(constants)+64*len(extra))
	out = append(out, '{')
	out = append(out, constants...)
	if inner := body[1 : len(body)-1]; len(inner) > 0 {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, inner...)
	}
	keys := make([]string, 0, len(extra))
	for key := range extra {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if len(out) > 1 {
			out = append(out, ',')
		}
		name, err := Marshal(key)
		if err != nil {
			return nil, err
		}
		value, err := MarshalRaw(extra[key])
		if err != nil {
			return nil, err
		}
		out = append(out, name...)
		out = append(out, ':')
		out = append(out, value...)
	}
	return append(out, '}'), nil
}
