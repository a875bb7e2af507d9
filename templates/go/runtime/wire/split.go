package wire

// Layer: typed layer (an object's members found in one pass, without reflection).

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// maxDepth is how deeply arrays and objects may nest, as encoding/json allows.
const maxDepth = 10000

var (
	errNotObject = errors.New("not a JSON object")
	errSyntax    = errors.New("not JSON")
)

// SplitObject checks that data is one JSON object (RFC 8259, the grammar encoding/json reads)
// and returns its members, each value as it is written in data: a sub-slice, so data must not
// change while they are used (copy it first to keep them). A repeated name keeps its last value,
// as encoding/json does. One pass over the bytes and no reflection: encoding/json's Unmarshal
// into a map checks the whole text, then decodes it again by reflection, copying every value.
func SplitObject(data []byte) (map[string]json.RawMessage, error) {
	s := scanner{data: data}
	s.space()
	if s.i >= len(data) || data[s.i] != '{' {
		if err := s.value(); err != nil {
			return nil, err
		}
		return nil, errNotObject
	}
	members := map[string]json.RawMessage{}
	if err := s.object(members); err != nil {
		return nil, err
	}
	s.space()
	if s.i != len(data) {
		return nil, errSyntax
	}
	return members, nil
}

type scanner struct {
	data  []byte
	i     int
	depth int
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value() error {
	s.space()
	if s.i >= len(s.data) {
		return errSyntax
	}
	switch c := s.data[s.i]; {
	case c == '{':
		return s.object(nil)
	case c == '[':
		return s.array()
	case c == '"':
		_, err := s.text()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	}
	return errSyntax
}

// object reads an object at s.i, putting its members in members when it is not nil.
func (s *scanner) object(members map[string]json.RawMessage) error {
	if s.depth++; s.depth > maxDepth {
		return errSyntax
	}
	s.i++ // '{'
	s.space()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		s.depth--
		return nil
	}
	for {
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return errSyntax
		}
		start := s.i
		plain, err := s.text()
		if err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return errSyntax
		}
		s.i++
		s.space()
		valueStart := s.i
		if err := s.value(); err != nil {
			return err
		}
		if members != nil {
			members[name(s.data[start:valueStart], plain)] = s.data[valueStart:s.i]
		}
		s.space()
		if s.i >= len(s.data) {
			return errSyntax
		}
		s.i++
		switch s.data[s.i-1] {
		case ',':
			continue
		case '}':
			s.depth--
			return nil
		}
		return errSyntax
	}
}

// name is a member's name from its quoted text (and what follows it up to the value): as it is
// when plain, else unescaped as encoding/json unescapes it.
func name(quoted []byte, plain bool) string {
	end := len(quoted) - 1
	for quoted[end] != '"' {
		end--
	}
	if plain {
		return string(quoted[1:end])
	}
	var text string
	_ = json.Unmarshal(quoted[:end+1], &text) // checked by text()
	return text
}

func (s *scanner) array() error {
	if s.depth++; s.depth > maxDepth {
		return errSyntax
	}
	s.i++ // '['
	s.space()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		s.depth--
		return nil
	}
	for {
		if err := s.value(); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) {
			return errSyntax
		}
		s.i++
		switch s.data[s.i-1] {
		case ',':
			continue
		case ']':
			s.depth--
			return nil
		}
		return errSyntax
	}
}

// text reads a string at s.i; plain is false when it holds an escape or bytes that are not
// UTF-8 (encoding/json then replaces them), so its value is not its bytes.
func (s *scanner) text() (plain bool, err error) {
	plain = true
	s.i++ // '"'
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return plain, nil
		case c == '\\':
			plain = false
			if s.i+1 >= len(s.data) {
				return false, errSyntax
			}
			switch s.data[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.data) || !hex4(s.data[s.i+2:s.i+6]) {
					return false, errSyntax
				}
				s.i += 6
			default:
				return false, errSyntax
			}
		case c < 0x20:
			return false, errSyntax
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, size := utf8.DecodeRune(s.data[s.i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			s.i += size
		}
	}
	return false, errSyntax
}

func hex4(digits []byte) bool {
	for _, c := range digits {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		return errSyntax
	}
	s.i += len(word)
	return nil
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at s.i.
func (s *scanner) number() error {
	if s.data[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.data) && s.data[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return errSyntax
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return errSyntax
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return errSyntax
		}
	}
	return nil
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.data) && '0' <= s.data[s.i] && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}
