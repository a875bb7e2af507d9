package wire

// Layer: typed layer (the decoders the generated UnmarshalJSON methods are made of).

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Decoder reads one JSON value into out, or says where and why it does not match the schema
// (a *DecodeError). The generated decoders are made of these.
type Decoder[T any] func(data []byte, out *T) error

// Decode is dec's value for data.
func Decode[T any](data []byte, dec Decoder[T]) (T, error) {
	var value T
	err := dec(data, &value)
	return value, err
}

// Unmarshal decodes with T's own UnmarshalJSON (a generated struct's).
func Unmarshal[T any, P interface {
	*T
	json.Unmarshaler
}](data []byte, out *T) error {
	return P(out).UnmarshalJSON(data)
}

// Integer is every Go integer type an ACP integer field may have (by its format).
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Float is every Go type an ACP number field may have.
type Float interface {
	~float32 | ~float64
}

func isNull(data []byte) bool {
	return len(data) == 4 && string(data) == "null"
}

// Raw keeps any JSON value as it came (a schema without constraints).
func Raw(data []byte, out *json.RawMessage) error {
	*out = append(json.RawMessage(nil), data...)
	return nil
}

// RawMap is an object of any values, each kept as it came (`_meta`).
func RawMap(data []byte, out *map[string]json.RawMessage) error {
	if len(data) == 0 || data[0] != '{' {
		return Fail("an object", data)
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &fields); err != nil {
		return Fail("an object", data)
	}
	*out = fields
	return nil
}

// NullOnly accepts null only.
func NullOnly(data []byte, out *JSONNull) error {
	if !isNull(data) {
		return Fail("null", data)
	}
	*out = JSONNull{}
	return nil
}

// String reads a JSON string.
func String[T ~string](data []byte, out *T) error {
	if len(data) < 2 || data[0] != '"' {
		return Fail("a string", data)
	}
	inner := data[1 : len(data)-1]
	if plain(inner) {
		*out = T(inner)
		return nil
	}
	var text string
	if err := json.Unmarshal(data, &text); err != nil {
		return Fail("a string", data)
	}
	*out = T(text)
	return nil
}

// plain reports whether a string's bytes need no unescaping: no escape, no control character,
// valid UTF-8.
func plain(inner []byte) bool {
	for _, c := range inner {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(inner)
}

var patterns sync.Map // pattern → *regexp.Regexp

// StringWith reads a string of at least minLength characters matching pattern ("" for none).
func StringWith[T ~string](minLength int, pattern string) Decoder[T] {
	return StringLength[T](minLength, -1, pattern)
}

// StringLength reads a string of minLength to maxLength characters (maxLength < 0: no maximum)
// matching pattern ("" for none). A character is a Unicode code point, as JSON Schema counts them
// ("the number of its characters as defined by RFC 8259"), not a byte.
func StringLength[T ~string](minLength, maxLength int, pattern string) Decoder[T] {
	return func(data []byte, out *T) error {
		var text T
		if err := String(data, &text); err != nil {
			return err
		}
		length := utf8.RuneCountInString(string(text))
		if length < minLength {
			return Fail("a string of at least "+strconv.Itoa(minLength)+" characters", data)
		}
		if maxLength >= 0 && length > maxLength {
			return Fail("a string of at most "+strconv.Itoa(maxLength)+" characters", data)
		}
		if pattern != "" && !compiled(pattern).MatchString(string(text)) {
			return Fail("a string matching "+pattern, data)
		}
		*out = text
		return nil
	}
}

func compiled(pattern string) *regexp.Regexp {
	if found, ok := patterns.Load(pattern); ok {
		return found.(*regexp.Regexp)
	}
	re := regexp.MustCompile(pattern)
	patterns.Store(pattern, re)
	return re
}

// Bool reads true or false.
func Bool[T ~bool](data []byte, out *T) error {
	switch string(data) {
	case "true":
		*out = true
	case "false":
		*out = false
	default:
		return Fail("a boolean", data)
	}
	return nil
}

// Int reads an integer that fits T (written without a fraction or an exponent).
func Int[T Integer](data []byte, out *T) error {
	text := string(data)
	if strings.HasPrefix(text, "-") {
		wide, err := strconv.ParseInt(text, 10, 64)
		value := T(wide)
		if err != nil || int64(value) != wide || value > 0 {
			return Fail("an integer in range", data)
		}
		*out = value
		return nil
	}
	wide, err := strconv.ParseUint(text, 10, 64)
	value := T(wide)
	if err != nil || uint64(value) != wide || value < 0 {
		return Fail("an integer in range", data)
	}
	*out = value
	return nil
}

// IntBetween reads an integer within [minimum, maximum].
func IntBetween[T Integer](minimum, maximum int64) Decoder[T] {
	expected := "an integer in [" + strconv.FormatInt(minimum, 10) + ", " + strconv.FormatInt(maximum, 10) + "]"
	return intRange[T](minimum, maximum, expected)
}

// IntAtLeast reads an integer of at least minimum.
func IntAtLeast[T Integer](minimum int64) Decoder[T] {
	return intRange[T](minimum, math.MaxInt64, "an integer of at least "+strconv.FormatInt(minimum, 10))
}

// IntAtMost reads an integer of at most maximum.
func IntAtMost[T Integer](maximum int64) Decoder[T] {
	return intRange[T](math.MinInt64, maximum, "an integer of at most "+strconv.FormatInt(maximum, 10))
}

func intRange[T Integer](minimum, maximum int64, expected string) Decoder[T] {
	return func(data []byte, out *T) error {
		var value T
		if err := Int(data, &value); err != nil {
			return err
		}
		if below(value, minimum) || below(maximum, value) {
			return Fail(expected, data)
		}
		*out = value
		return nil
	}
}

// below reports whether a < b for integers of any two types (no conversion overflows).
func below[A, B Integer](a A, b B) bool {
	switch {
	case a < 0 && b >= 0:
		return true
	case a >= 0 && b < 0:
		return false
	case a < 0:
		return int64(a) < int64(b)
	}
	return uint64(a) < uint64(b)
}

// Number reads a JSON number.
func Number[T Float](data []byte, out *T) error {
	if len(data) == 0 || strings.Trim(string(data), "0123456789+-.eE") != "" || !(data[0] == '-' || data[0] >= '0' && data[0] <= '9') {
		return Fail("a number", data)
	}
	value, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return Fail("a number", data)
	}
	*out = T(value)
	return nil
}

// NumberBetween reads a number within [minimum, maximum].
func NumberBetween[T Float](minimum, maximum float64) Decoder[T] {
	expected := "a number in [" + formatFloat(minimum) + ", " + formatFloat(maximum) + "]"
	return numberRange[T](minimum, maximum, expected)
}

// NumberAtLeast reads a number of at least minimum.
func NumberAtLeast[T Float](minimum float64) Decoder[T] {
	return numberRange[T](minimum, math.Inf(1), "a number of at least "+formatFloat(minimum))
}

// NumberAtMost reads a number of at most maximum.
func NumberAtMost[T Float](maximum float64) Decoder[T] {
	return numberRange[T](math.Inf(-1), maximum, "a number of at most "+formatFloat(maximum))
}

func numberRange[T Float](minimum, maximum float64, expected string) Decoder[T] {
	return func(data []byte, out *T) error {
		var value T
		if err := Number(data, &value); err != nil {
			return err
		}
		if float64(value) < minimum || float64(value) > maximum {
			return Fail(expected, data)
		}
		*out = value
		return nil
	}
}

func formatFloat(value float64) string {
	return strconv.FormatFloat(value, 'g', -1, 64)
}

// OneOf reads a string that is one of allowed (a closed enumeration).
func OneOf[T ~string](data []byte, out *T, allowed ...T) error {
	var value T
	if err := String(data, &value); err == nil {
		for _, candidate := range allowed {
			if candidate == value {
				*out = value
				return nil
			}
		}
	}
	names := make([]string, len(allowed))
	for i, candidate := range allowed {
		names[i] = strconv.Quote(string(candidate))
	}
	return Fail("one of "+strings.Join(names, ", "), data)
}

// OneOfInt reads an integer that is one of allowed (a closed enumeration).
func OneOfInt[T Integer](data []byte, out *T, allowed ...T) error {
	var value T
	if err := Int(data, &value); err == nil {
		for _, candidate := range allowed {
			if candidate == value {
				*out = value
				return nil
			}
		}
	}
	names := make([]string, len(allowed))
	for i, candidate := range allowed {
		names[i] = strconv.FormatInt(int64(candidate), 10)
	}
	return Fail("one of "+strings.Join(names, ", "), data)
}

// Array reads an array of items; skipInvalid drops the items that do not decode (the schema's
// x-deserialize-skip-invalid-items) instead of failing.
func Array[T any](item Decoder[T], minItems int, skipInvalid bool) Decoder[[]T] {
	return func(data []byte, out *[]T) error {
		var raw []json.RawMessage
		if len(data) == 0 || data[0] != '[' || json.Unmarshal(data, &raw) != nil {
			return Fail("an array", data)
		}
		items := make([]T, 0, len(raw))
		for index, element := range raw {
			var value T
			if err := item(element, &value); err != nil {
				if skipInvalid {
					continue
				}
				return At(err, strconv.Itoa(index))
			}
			items = append(items, value)
		}
		if len(items) < minItems {
			return Fail("at least "+strconv.Itoa(minItems)+" items", data)
		}
		*out = items
		return nil
	}
}

// Map reads an object whose every value decodes with values.
func Map[T any](values Decoder[T]) Decoder[map[string]T] {
	return func(data []byte, out *map[string]T) error {
		var raw map[string]json.RawMessage
		if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &raw) != nil {
			return Fail("an object", data)
		}
		decoded := make(map[string]T, len(raw))
		for key, element := range raw {
			var value T
			if err := values(element, &value); err != nil {
				return At(err, key)
			}
			decoded[key] = value
		}
		*out = decoded
		return nil
	}
}

// NullOr reads null as Null and anything else with inner (a nullable value inside an array, a
// map or an alias).
func NullOr[T any](inner Decoder[T]) Decoder[Opt[T]] {
	return func(data []byte, out *Opt[T]) error {
		if isNull(data) {
			*out = Null[T]()
			return nil
		}
		var value T
		if err := inner(data, &value); err != nil {
			return err
		}
		*out = Some(value)
		return nil
	}
}

// NoneOf is the error of an untagged union none of whose shapes data has.
func NoneOf(data []byte, errs []error) error {
	reasons := make([]string, len(errs))
	for i, err := range errs {
		reasons[i] = err.Error()
	}
	return Fail("one of "+strconv.Itoa(len(errs))+" shapes ("+strings.Join(reasons, "; ")+")", data)
}

func isWhitespace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// trim removes the whitespace around a JSON value.
func trim(data []byte) []byte {
	return bytes.TrimFunc(data, func(r rune) bool { return r < utf8.RuneSelf && isWhitespace(byte(r)) })
}
