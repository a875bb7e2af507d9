package tests

import (
	"encoding/json"
	"errors"
	"maps"
	"testing"

	"acp-protocol-sdk/wire"
)

// splitCases are texts SplitObject must judge as encoding/json does (RFC 8259's grammar).
var splitCases = []string{
	`{}`, ` { "a" : 1 , "b":[true,false,null,{"c":"d"}] } `, `{"a":1,"a":2}`, `{"\u0061":"x","b\"c":"\n"}`,
	`{"n":-0.5e+10}`, `{"n":0}`, `{"s":"\ud83d\ude00 é"}`, "{\"bad\":\"\xff\"}", "{\"k\xff\":1}",
	`[]`, `"text"`, `1`, `null`, ``, ` `, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1}x`, `{"a":01}`,
	`{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\t\"}", `{"a":[1,]}`,
	`{"a":tru}`, `{"a":nul}`, `{1:2}`, `{"a":1 "b":2}`, `{"a":{"b":{"c":[[[]]]}}}`,
}

// encodingJSON is encoding/json's reading of an object's members (null is not an object).
func encodingJSON(data []byte) (map[string]json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	if members == nil {
		return nil, errors.New("not an object")
	}
	return members, nil
}

func TestSplitObjectReadsExactlyWhatEncodingJSONReads(t *testing.T) {
	for _, text := range splitCases {
		got, err := wire.SplitObject([]byte(text))
		want, wantErr := encodingJSON([]byte(text))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%q: SplitObject %v, encoding/json %v", text, err, wantErr)
			continue
		}
		if err == nil && !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Errorf("%q: %v, encoding/json %v", text, got, want)
		}
	}
}

func FuzzSplitObject(f *testing.F) {
	for _, text := range splitCases {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := wire.SplitObject(data)
		want, wantErr := encodingJSON(data)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: SplitObject %v, encoding/json %v", data, err, wantErr)
		}
		if err == nil && !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Fatalf("%q: %v, encoding/json %v", data, got, want)
		}
	})
}
