package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	acp "acp-protocol-sdk"
)

// frame is one JSON-RPC message of a corpus file.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// Real ACP messages (tests/corpus/v1, written from the spec's examples): every frame's params
// or result decodes into known variants with no kept members (so the open unions cannot hide a
// typo) and marshals back to the same JSON, in the stable and the unstable v1 packages.
func TestOfficialCorpusRoundTripsExactlyAndFullyKnown(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "corpus", "v1", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus under tests/corpus/v1 (%v)", err)
	}
	for _, key := range []string{"v1", "v1/unstable"} {
		for _, path := range files {
			t.Run(key+"/"+filepath.Base(path), func(t *testing.T) {
				checkCorpusFile(t, editions[key], path)
			})
		}
	}
}

func checkCorpusFile(t *testing.T, e edition, path string) {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var frames []frame
	if err := json.Unmarshal(text, &frames); err != nil {
		t.Fatal(err)
	}
	methodOf := map[string]string{}
	for index, f := range frames {
		var decode func([]byte) (any, error)
		var payload json.RawMessage
		switch {
		case f.Method != "" && f.ID != nil:
			methodOf[string(f.ID)] = f.Method
			decode, payload = e.method(t, f.Method, acp.Request).DecodeParams, f.Params
		case f.Method != "":
			decode, payload = e.method(t, f.Method, acp.Notification).DecodeParams, f.Params
		default:
			decode, payload = e.method(t, methodOf[string(f.ID)], acp.Request).DecodeResult, f.Result
		}
		value, difference := roundTrip(decode, payload)
		if difference != "" {
			t.Errorf("frame %d: %s", index, difference)
			continue
		}
		if unknown := unknownParts("", reflect.ValueOf(value)); len(unknown) > 0 {
			t.Errorf("frame %d: %v", index, unknown)
		}
	}
}

// sample is one value of the synthesized corpus: a minimal instance of a schema type (each
// method's params and result, each union branch), valid against the pinned schema.
type sample struct {
	Edition string          `json:"edition"`
	Type    string          `json:"type"`
	Label   string          `json:"label"`
	Value   json.RawMessage `json:"value"`
	// Branch: a union branch, CatchAll: the branch is the schema's declared catch-all.
	Branch   bool `json:"branch"`
	CatchAll bool `json:"catchAll"`
}

// The corpus synthesized from every pinned schema (tests/go/test_go_module.py writes it, path
// in ACP_GO_SAMPLES): each sample round-trips exactly, and a union branch of objects lands on
// its own variant, never on a catch-all it does not declare (and a declared one on it).
func TestSynthesizedCorpusRoundTripsExactly(t *testing.T) {
	path := os.Getenv("ACP_GO_SAMPLES")
	if path == "" {
		t.Fatal("ACP_GO_SAMPLES is not set: run these tests with `make test-go` (pytest tests/go writes the samples)")
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var samples []sample
	if err := json.Unmarshal(text, &samples); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range samples {
		e, ok := editions[s.Edition]
		if !ok {
			t.Fatalf("%s: no Go package for the edition %q", s.Label, s.Edition)
		}
		named, ok := e.types[s.Type]
		if !ok {
			t.Errorf("%s: no Go type for the schema type %s", s.Label, s.Type)
			continue
		}
		value, difference := roundTrip(named.Decode, s.Value)
		if difference != "" {
			t.Errorf("%s (%s %s): %s", s.Label, s.Edition, named.Go, difference)
			continue
		}
		if kind := reflect.TypeOf(value); s.Branch && kind.Kind() == reflect.Struct {
			if isCatchAll(kind) != s.CatchAll {
				t.Errorf("%s: decoded as %s (declared catch-all: %v)", s.Label, kind.Name(), s.CatchAll)
			}
		}
		seen[s.Edition]++
	}
	for key := range editions {
		if seen[key] == 0 {
			t.Errorf("no sample of the edition %s", key)
		}
	}
}
