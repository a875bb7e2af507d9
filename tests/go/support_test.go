// Package tests holds the Go module's tests: generated/go through its public API, against the
// official corpus (tests/corpus), the corpus synthesized from every pinned schema (written by
// tests/go/test_go_module.py) and the spec's rules. Run them with `make test-go`.
package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v1unstable "acp-protocol-sdk/v1/unstable"
	v2 "acp-protocol-sdk/v2"
	v2unstable "acp-protocol-sdk/v2/unstable"
	"acp-protocol-sdk/wire"
)

// edition is one generated package's tables.
type edition struct {
	types   map[string]acp.Type
	methods []acp.Method
}

var editions = map[string]edition{
	"v1":          {byName(v1.Types), v1.Methods},
	"v1/unstable": {byName(v1unstable.Types), v1unstable.Methods},
	"v2":          {byName(v2.Types), v2.Methods},
	"v2/unstable": {byName(v2unstable.Types), v2unstable.Methods},
}

func byName(types []acp.Type) map[string]acp.Type {
	found := make(map[string]acp.Type, len(types))
	for _, t := range types {
		found[t.Schema] = t
	}
	return found
}

// method is the edition's method of that name and kind.
func (e edition) method(t *testing.T, name string, kind acp.Kind) acp.Method {
	t.Helper()
	for _, m := range e.methods {
		if m.Name == name && m.Kind == kind {
			return m
		}
	}
	t.Fatalf("no %s %q", kind, name)
	return acp.Method{}
}

// roundTrip decodes wire with decode, marshals the value back and says how the two differ
// ("" when they are the same JSON).
func roundTrip(decode func([]byte) (any, error), wire json.RawMessage) (any, string) {
	value, err := decode(wire)
	if err != nil {
		return nil, "decode: " + err.Error()
	}
	written, err := json.Marshal(value)
	if err != nil {
		return value, "marshal: " + err.Error()
	}
	if difference := sameJSON(wire, written); difference != "" {
		return value, difference + "\n  read:    " + string(wire) + "\n  written: " + string(written)
	}
	return value, ""
}

// sameJSON compares two JSON texts as values: member order and spacing carry no meaning,
// numbers compare by value.
func sameJSON(a, b []byte) string {
	left, err := parse(a)
	if err != nil {
		return "the first is not JSON: " + err.Error()
	}
	right, err := parse(b)
	if err != nil {
		return "the second is not JSON: " + err.Error()
	}
	return compare("", left, right)
}

func parse(data []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var value any
	err := decoder.Decode(&value)
	return value, err
}

func compare(at string, a, b any) string {
	switch left := a.(type) {
	case map[string]any:
		right, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: an object became %T", at, b)
		}
		for key, value := range left {
			other, present := right[key]
			if !present {
				return fmt.Sprintf("%s/%s: dropped", at, key)
			}
			if difference := compare(at+"/"+key, value, other); difference != "" {
				return difference
			}
		}
		for key := range right {
			if _, present := left[key]; !present {
				return fmt.Sprintf("%s/%s: added", at, key)
			}
		}
	case []any:
		right, ok := b.([]any)
		if !ok || len(left) != len(right) {
			return fmt.Sprintf("%s: an array of %d became %v", at, len(left), b)
		}
		for i := range left {
			if difference := compare(fmt.Sprintf("%s/%d", at, i), left[i], right[i]); difference != "" {
				return difference
			}
		}
	case json.Number:
		right, ok := b.(json.Number)
		x, okX := new(big.Rat).SetString(left.String())
		y, okY := new(big.Rat).SetString(right.String())
		if !ok || !okX || !okY || x.Cmp(y) != 0 {
			return fmt.Sprintf("%s: %v became %v", at, a, b)
		}
	default:
		if a != b {
			return fmt.Sprintf("%s: %#v became %#v", at, a, b)
		}
	}
	return ""
}

// isCatchAll reports whether a Go type is a union's catch-all (by the IR's naming rule:
// `Unknown` + union, or union + `Other` where the schema spells that branch out).
func isCatchAll(t reflect.Type) bool {
	return strings.HasPrefix(t.Name(), "Unknown") || strings.HasSuffix(t.Name(), "Other")
}

var extraType = reflect.TypeOf(wire.Extra(nil))

// unknownParts lists, by path, every catch-all variant and every kept member in a decoded
// value: a message the schema fully describes has none.
func unknownParts(at string, value reflect.Value) []string {
	switch value.Kind() {
	case reflect.Interface, reflect.Pointer:
		if value.IsNil() {
			return nil
		}
		return unknownParts(at, value.Elem())
	case reflect.Slice:
		if value.Type().Elem().Kind() == reflect.Uint8 { // a kept JSON value
			return nil
		}
		var found []string
		for i := 0; i < value.Len(); i++ {
			found = append(found, unknownParts(fmt.Sprintf("%s[%d]", at, i), value.Index(i))...)
		}
		return found
	case reflect.Map:
		var found []string
		for _, key := range value.MapKeys() {
			found = append(found, unknownParts(fmt.Sprintf("%s[%v]", at, key), value.MapIndex(key))...)
		}
		return found
	case reflect.Struct:
	default:
		return nil
	}
	var found []string
	if isCatchAll(value.Type()) {
		found = append(found, at+": the unknown variant "+value.Type().Name())
	}
	for i := 0; i < value.NumField(); i++ {
		field := value.Type().Field(i)
		if !field.IsExported() {
			if field.Name == "value" { // wire.Opt's value
				found = append(found, unknownParts(at, value.Field(i))...)
			}
			continue
		}
		if field.Type == extraType && value.Field(i).Len() > 0 {
			found = append(found, fmt.Sprintf("%s: kept members %v", at, value.Field(i).MapKeys()))
			continue
		}
		found = append(found, unknownParts(at+"."+field.Name, value.Field(i))...)
	}
	return found
}
