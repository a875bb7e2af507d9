package acp

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Layer: typed layer (pure data). The decoding a client state is fed with: a message's bytes as
// the JSON values ClientState.Apply takes, in one pass (encoding/json's decoding into any is
// several times slower, and the generated client handler decodes every update it feeds).

var errJSON = errors.New("acp: not a JSON value")

// JSONValues is data decoded as JSON values: objects map[string]any, arrays []any, strings,
// numbers as json.Number (exact), booleans, nil; the same values encoding/json gives with
// UseNumber, and an error for the same inputs. ClientState.Apply takes a state message decoded
// so (a recorded session replayed, say).
func JSONValues(data []byte) (any, error) {
	d := valueDecoder{data: data}
	value, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(d.data) {
		return nil, errJSON
	}
	return value, nil
}

// valueDecoder reads one JSON value; nesting deeper than maxDepth is refused (as encoding/json
// refuses it), so a hostile message cannot exhaust the stack.
type valueDecoder struct {
	data []byte
	i    int
}

const maxDepth = 10000

func (d *valueDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *valueDecoder) value(depth int) (any, error) {
	d.space()
	if d.i >= len(d.data) || depth > maxDepth {
		return nil, errJSON
	}
	switch c := d.data[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return d.number()
	}
}

func (d *valueDecoder) literal(word string) error {
	if len(d.data)-d.i < len(word) || string(d.data[d.i:d.i+len(word)]) != word {
		return errJSON
	}
	d.i += len(word)
	return nil
}

func (d *valueDecoder) object(depth int) (any, error) {
	d.i++
	out := map[string]any{}
	d.space()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		return out, nil
	}
	for {
		d.space()
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return nil, errJSON
		}
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.data) || d.data[d.i] != ':' {
			return nil, errJSON
		}
		d.i++
		value, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[key] = value
		d.space()
		if d.i >= len(d.data) {
			return nil, errJSON
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return out, nil
		default:
			return nil, errJSON
		}
	}
}

func (d *valueDecoder) array(depth int) (any, error) {
	d.i++
	out := []any{}
	d.space()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		return out, nil
	}
	for {
		value, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, value)
		d.space()
		if d.i >= len(d.data) {
			return nil, errJSON
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return out, nil
		default:
			return nil, errJSON
		}
	}
}

// string is a plain string's text copied once; one with escapes or bytes beyond ASCII is left to
// encoding/json, so its rules (invalid UTF-8 replaced, surrogate pairs) hold exactly.
func (d *valueDecoder) string() (string, error) {
	start := d.i
	d.i++
	plain := true
	for d.i < len(d.data) {
		switch c := d.data[d.i]; {
		case c == '"':
			d.i++
			if plain {
				return string(d.data[start+1 : d.i-1]), nil
			}
			var text string
			if err := json.Unmarshal(d.data[start:d.i], &text); err != nil {
				return "", err
			}
			return text, nil
		case c == '\\':
			plain = false
			d.i += 2
		case c < 0x20:
			return "", errJSON
		case c >= utf8.RuneSelf:
			plain = false
			d.i++
		default:
			d.i++
		}
	}
	return "", errJSON
}

func (d *valueDecoder) number() (any, error) {
	start := d.i
	for d.i < len(d.data) {
		switch c := d.data[d.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			d.i++
			continue
		}
		break
	}
	text := string(d.data[start:d.i])
	if !validNumber(text) {
		return nil, errJSON
	}
	return json.Number(text), nil
}

// validNumber is JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}
