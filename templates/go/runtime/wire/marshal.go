package wire

// Layer: typed layer (MarshalObject: constants first, Extra last).

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Marshal is encoding/json's Marshal without HTML escaping (`<`, `>` and `&` are written as
// they are: what was read is written back).
func Marshal(value any) ([]byte, error) {
	var buffer bytes.Buffer
	encoder := json.NewEncoder(&buffer)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buffer.Bytes(), []byte("\n")), nil
}

// MarshalRaw writes a kept JSON value as it is (null when there is none).
func MarshalRaw[T ~[]byte](value T) ([]byte, error) {
	if value == nil {
		return []byte("null"), nil
	}
	return json.RawMessage(value).MarshalJSON()
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
