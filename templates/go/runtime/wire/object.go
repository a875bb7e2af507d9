package wire

// Layer: typed layer (an object split once into its members).

import (
	"bytes"
	"encoding/json"
)

// Flags are a field's lenient-decoding rules and its shape, as the schema gives them.
type Flags uint8

const (
	// Required: the field may not be absent.
	Required Flags = 1 << iota
	// Nullable: the field may be null (kept as Null, apart from absent).
	Nullable
	// DefaultOnError (x-deserialize-default-on-error): a value that does not decode is dropped
	// (the field is left at its default) and the rest of the object is kept.
	DefaultOnError
	// DefaultOnNull (x-deserialize-default-on-null): null means the default.
	DefaultOnNull
)

// Object is a JSON object being decoded into a generated struct: each field helper takes its
// member out, and Finish hands the members no field took to the struct's Extra. The first
// error stops the rest (each helper does nothing once one failed).
type Object struct {
	data   []byte
	fields map[string]json.RawMessage
	err    error
}

// ParseObject splits data into its members; a value that is not an object is the error.
func ParseObject(data []byte) *Object {
	data = trim(data)
	o := &Object{data: data}
	if len(data) == 0 || data[0] != '{' {
		o.err = Fail("an object", data)
		return o
	}
	// A copy: the members are slices of it and outlive the call (UnmarshalJSON's data does not).
	fields, err := SplitObject(bytes.Clone(data))
	if err != nil {
		o.err = Fail("an object", data)
	}
	o.fields = fields
	return o
}

// Raw is the object as it came.
func (o *Object) Raw() []byte {
	return o.data
}

// Err is the first error met so far.
func (o *Object) Err() error {
	return o.err
}

func (o *Object) take(name string) (json.RawMessage, bool) {
	if o.err != nil {
		return nil, false
	}
	value, ok := o.fields[name]
	if ok {
		delete(o.fields, name)
	}
	return value, ok
}

// Tag is the string value of a tagged union's tag field, without taking it; present is false
// when the field is absent or null (or the value is not an object).
func (o *Object) Tag(name string) (tag string, present bool) {
	if o.err != nil {
		return "", false
	}
	value, ok := o.fields[name]
	if !ok || isNull(value) {
		return "", false
	}
	if String(value, &tag) != nil {
		return "", true // not a string: the unknown variant's decoder says so, at its pointer
	}
	return tag, true
}

// MissingTag is the error of a union without a default variant whose tag field is absent.
func (o *Object) MissingTag(name string) error {
	if o.err != nil {
		return o.err
	}
	return (&DecodeError{Expected: "the tag field " + quote(name)}).at(name)
}

// Constant takes a field that must hold the string value (a variant's tag).
func (o *Object) Constant(name, value string) {
	raw, ok := o.take(name)
	if o.err != nil {
		return
	}
	var text string
	if !ok {
		o.err = (&DecodeError{Expected: "a required field"}).at(name)
	} else if String(raw, &text) != nil || text != value {
		o.err = Fail(quote(value), raw).at(name)
	}
}

// Finish ends decoding: the members no field took go to extra.
func (o *Object) Finish(extra *Extra) error {
	if o.err != nil {
		return o.err
	}
	if len(o.fields) > 0 {
		*extra = o.fields
	}
	o.fields = nil
	return nil
}

// Field takes a field whose value is not an Opt: required, or left at its zero value when
// absent, null under DefaultOnNull, or invalid under DefaultOnError.
func Field[T any](o *Object, name string, out *T, dec Decoder[T], flags Flags) {
	raw, ok := o.take(name)
	if o.err != nil {
		return
	}
	switch {
	case !ok:
		if flags&Required != 0 {
			o.err = (&DecodeError{Expected: "a required field"}).at(name)
		}
	case flags&DefaultOnNull != 0 && isNull(raw):
	default:
		if err := dec(raw, out); err != nil && flags&DefaultOnError == 0 {
			o.err = At(err, name)
		}
	}
}

// OptionalField takes a field that may be absent or null (or both): absent stays absent, null
// is Null when the field is Nullable and absent under DefaultOnNull; a value that does not
// decode is absent under DefaultOnError.
func OptionalField[T any](o *Object, name string, out *Opt[T], dec Decoder[T], flags Flags) {
	raw, ok := o.take(name)
	if o.err != nil {
		return
	}
	switch {
	case !ok:
		if flags&Required != 0 {
			o.err = (&DecodeError{Expected: "a required field"}).at(name)
		}
	case flags&Nullable != 0 && isNull(raw):
		*out = Null[T]()
	case flags&DefaultOnNull != 0 && isNull(raw):
	default:
		var value T
		if err := dec(raw, &value); err != nil {
			if flags&DefaultOnError == 0 {
				o.err = At(err, name)
			}
			return
		}
		*out = Some(value)
	}
}

func quote(text string) string {
	literal, _ := json.Marshal(text)
	return string(literal)
}
