// Package wire is the JSON representation every generated ACP type is built from: a field that
// may be absent, null or a value (Opt), the fields a schema does not name (Extra), and the
// decoders the generated UnmarshalJSON methods are made of, whose errors name the offending
// value by its JSON pointer (DecodeError). Layer: typed layer; it knows no ACP method.
//
// Absent, null and a value are three different things everywhere: nothing here turns one into
// another except the schema's lenient rules (x-deserialize-*), which a generated decoder passes
// in as Flags.
package wire

import (
	"encoding/json"
)

type optState uint8

const (
	absent optState = iota
	null
	present
)

// Opt is a field that may be absent, null or a value. The zero Opt is absent: with the
// `omitzero` option of its json tag it is left out of the object. A field the schema requires
// but allows to be null is an Opt too, without `omitzero`: absent then marshals as null.
type Opt[T any] struct {
	state optState
	value T
}

// Some is an Opt holding value.
func Some[T any](value T) Opt[T] {
	return Opt[T]{state: present, value: value}
}

// Null is an Opt holding JSON null.
func Null[T any]() Opt[T] {
	return Opt[T]{state: null}
}

// IsZero reports whether o is absent (encoding/json's `omitzero` asks this).
func (o Opt[T]) IsZero() bool {
	return o.state == absent
}

// IsAbsent reports whether o is absent.
func (o Opt[T]) IsAbsent() bool {
	return o.state == absent
}

// IsNull reports whether o is JSON null.
func (o Opt[T]) IsNull() bool {
	return o.state == null
}

// Get returns the value and true, or the zero value and false when o is absent or null.
func (o Opt[T]) Get() (T, bool) {
	return o.value, o.state == present
}

// Or returns the value, or fallback when o is absent or null.
func (o Opt[T]) Or(fallback T) T {
	if o.state == present {
		return o.value
	}
	return fallback
}

// MarshalJSON writes the value, or null (an absent Opt that is not omitted is written as null).
func (o Opt[T]) MarshalJSON() ([]byte, error) {
	if o.state != present {
		return []byte("null"), nil
	}
	return Marshal(o.value)
}

// UnmarshalJSON reads null as Null and anything else as a value, with encoding/json's rules
// for T. The generated types do not use it: their decoders read each field with the schema's
// checks (OptionalField).
func (o *Opt[T]) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		*o = Null[T]()
		return nil
	}
	var value T
	if err := json.Unmarshal(data, &value); err != nil {
		return err
	}
	*o = Some(value)
	return nil
}

// JSONNull is the type of a value that can only be null (a schema's `type: null`).
type JSONNull struct{}

// MarshalJSON writes null.
func (JSONNull) MarshalJSON() ([]byte, error) {
	return []byte("null"), nil
}

// UnmarshalJSON accepts null only.
func (n *JSONNull) UnmarshalJSON(data []byte) error {
	return NullOnly(data, n)
}

// Extra holds the fields of an object that its schema does not name, as they came: ACP objects
// are extensible, and a peer's newer fields are passed on, not dropped. A key must not repeat a
// field the type names.
type Extra map[string]json.RawMessage
