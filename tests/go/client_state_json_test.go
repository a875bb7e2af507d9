package tests

// acp.JSONValues, the decoding the client state is fed with (the generated handler decodes every
// update it feeds with it): the same values as encoding/json with UseNumber, and an error for the
// same inputs, on every message of the state corpus and on the corners of JSON's grammar.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	acp "acp-protocol-sdk"
)

// standardValues is data as encoding/json decodes it into any with UseNumber (an error for
// what json.Unmarshal refuses: trailing data included).
func standardValues(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, errors.New("not JSON")
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var value any
	err := decoder.Decode(&value)
	return value, err
}

func TestJSONValuesDecodeAsEncodingJSONDoes(t *testing.T) {
	inputs := []string{
		`{"a":"x\u00e9\n\t\"\\\/","b":[1,-2.5e3,0.5,-0,1E+2,true,false,null,{},[]],"c":"é","d":{"e":{"f":[[]]}}}`,
		`"\ud83d\ude00"`, `"\ud83d"`, "\"\xff\"", `  {"k" : [ 1 , 2 ] }  `, `{"k":1,"k":2}`, `12345678901234567890`,
	}
	for _, protocol := range []string{"v1", "v2"} {
		data, err := os.ReadFile("../corpus/state/" + protocol + ".jsonl")
		if err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(bytes.NewReader(data))
		lines.Buffer(nil, 1<<24)
		for lines.Scan() {
			inputs = append(inputs, lines.Text())
		}
	}
	for _, input := range inputs {
		want, err := standardValues([]byte(input))
		if err != nil {
			t.Fatalf("%s: %v", input, err)
		}
		got, err := acp.JSONValues([]byte(input))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %#v %v\nwant %#v", input, got, err, want)
		}
	}
}

func TestJSONValuesRefuseWhatEncodingJSONRefuses(t *testing.T) {
	bad := []string{
		``, ` `, `{`, `}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{"a":1,}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `+1`,
		`1e`, `1e+`, `tru`, `nul`, `"a`, "\"a\nb\"", `"\x"`, `{} x`, `[]]`, "\xff",
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
	}
	for _, input := range bad {
		if _, err := standardValues([]byte(input)); err == nil {
			t.Fatalf("encoding/json accepts %q", input)
		}
		if value, err := acp.JSONValues([]byte(input)); err == nil {
			t.Fatalf("%q decoded as %#v", input, value)
		}
	}
}
