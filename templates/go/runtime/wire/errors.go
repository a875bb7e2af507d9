package wire

// Layer: typed layer (DecodeError: where a value failed to decode, as a JSON pointer).

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeError is a value that does not match the schema: Pointer says where, relative to the
// decoded value (`/update/content/text`), Expected what was expected and what came instead.
// A request whose params fail to decode is answered -32602 with both in its data.
type DecodeError struct {
	// Path holds the reference tokens of the pointer, outermost first, unescaped.
	Path []string
	// Expected is what the schema wanted, and what came (`a string, got number 7`).
	Expected string
}

// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is the whole value.
func (e *DecodeError) Pointer() string {
	var b strings.Builder
	for _, token := range e.Path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func (e *DecodeError) Error() string {
	pointer := e.Pointer()
	if pointer == "" {
		pointer = "/"
	}
	return pointer + ": expected " + e.Expected
}

// at adds one level of the path while the error travels up (nothing is spent while values
// check).
func (e *DecodeError) at(token string) *DecodeError {
	e.Path = append([]string{token}, e.Path...)
	return e
}

// At returns err one level down the path, under token; an error that is not a DecodeError (a
// hand-written UnmarshalJSON's) becomes one, its message the expectation.
func At(err error, token string) error {
	var decodeError *DecodeError
	if errors.As(err, &decodeError) {
		return decodeError.at(token)
	}
	return (&DecodeError{Expected: err.Error()}).at(token)
}

// Fail is the DecodeError for data, which is not what expected says.
func Fail(expected string, data []byte) *DecodeError {
	return &DecodeError{Expected: expected + ", got " + describe(data)}
}

// describe names a JSON value for an error message: its kind, and a short string or a number.
func describe(data []byte) string {
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean " + string(data)
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var text string
		if err := String(data, &text); err != nil {
			return "a string"
		}
		if utf8.RuneCountInString(text) > 40 {
			text = string([]rune(text)[:40])
		}
		return "the string " + strconv.Quote(text)
	}
	return "number " + string(data)
}
