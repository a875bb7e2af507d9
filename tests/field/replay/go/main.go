// Command replay is a recording replayed through the Go runtime (layer: field tooling): the twin
// of tests/field/replay.py (its docstring says what the output holds), the same walk with this
// runtime's generated method tables (Methods, Types) and its acp.ClientState.
//
//	go build -o replay . && ./replay RECORDING.jsonl   → one JSON object on stdout
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v1unstable "acp-protocol-sdk/v1/unstable"
	v2 "acp-protocol-sdk/v2"
	v2unstable "acp-protocol-sdk/v2/unstable"
	"acp-protocol-sdk/wire"
)

type frame struct {
	index, line int
	dir         string
	raw         json.RawMessage // nil: the line was not JSON
}

type edition struct {
	name    string
	methods []acp.Method
	types   []acp.Type
}

type decoder func([]byte) (any, error)

var editions = map[string][]edition{
	"v1": {{"v1", v1.Methods, v1.Types}, {"v1/unstable", v1unstable.Methods, v1unstable.Types}},
	"v2": {{"v2", v2.Methods, v2.Types}, {"v2/unstable", v2unstable.Methods, v2unstable.Types}},
}

var tables = map[string]*acp.StateTable{"v1": v1unstable.StateTable, "v2": v2unstable.StateTable}

func readFrames(path string) ([]frame, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var found []frame
	index := 0
	lines := bufio.NewScanner(bytes.NewReader(data))
	lines.Buffer(nil, 1<<26)
	for number := 1; lines.Scan(); number++ {
		if len(bytes.TrimSpace(lines.Bytes())) == 0 {
			continue
		}
		var record struct {
			Dir  string          `json:"dir"`
			JSON json.RawMessage `json:"json"`
		}
		if err := json.Unmarshal(lines.Bytes(), &record); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, number, err)
		}
		if record.Dir != "sent" && record.Dir != "received" {
			continue
		}
		// Each message of a JSON-RPC batch is one, under its frame's index.
		var batch []json.RawMessage
		if json.Unmarshal(record.JSON, &batch) != nil || len(batch) == 0 {
			batch = []json.RawMessage{record.JSON}
		}
		for _, message := range batch {
			found = append(found, frame{index, number, record.Dir, message})
		}
		index++
	}
	return found, lines.Err()
}

// message is a frame's JSON-RPC members, each kept as it came.
func message(raw json.RawMessage) map[string]json.RawMessage {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil
	}
	return members
}

func text(raw json.RawMessage) (string, bool) {
	var s string
	return s, raw != nil && json.Unmarshal(raw, &s) == nil
}

func negotiated(all []frame) int {
	var asked json.RawMessage
	for _, f := range all {
		m := message(f.raw)
		if m == nil {
			continue
		}
		_, hasMethod := m["method"]
		if method, _ := text(m["method"]); f.dir == "sent" && method == "initialize" {
			asked = m["id"]
		} else if f.dir == "received" && !hasMethod && asked != nil && bytes.Equal(m["id"], asked) {
			var result struct {
				ProtocolVersion json.RawMessage `json:"protocolVersion"`
			}
			var version int
			if json.Unmarshal(m["result"], &result) == nil && json.Unmarshal(result.ProtocolVersion, &version) == nil {
				return version
			}
			return 1
		}
	}
	return 1
}

func spec(e edition, method string, request bool) *acp.Method {
	kinds := []acp.Kind{acp.Request, acp.Notification}
	if !request {
		kinds = []acp.Kind{acp.Notification, acp.Request}
	}
	for _, kind := range kinds {
		for i := range e.methods {
			if e.methods[i].Name == method && e.methods[i].Kind == kind {
				return &e.methods[i]
			}
		}
	}
	return nil
}

func typeDecoder(e edition, schema string) decoder {
	for _, t := range e.types {
		if t.Schema == schema {
			return t.Decode
		}
	}
	return nil
}

func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// firstDifference is the pointer of the first place where kept is not given ("" and false:
// they are equal).
func firstDifference(given, kept any, pointer string) (string, bool) {
	g, gObject := given.(map[string]any)
	k, kObject := kept.(map[string]any)
	if gObject && kObject {
		keys := map[string]bool{}
		for key := range g {
			keys[key] = true
		}
		for key := range k {
			keys[key] = true
		}
		sorted := make([]string, 0, len(keys))
		for key := range keys {
			sorted = append(sorted, key)
		}
		sort.Strings(sorted)
		for _, key := range sorted {
			a, inG := g[key]
			b, inK := k[key]
			if !inG || !inK {
				return pointer + "/" + escape(key), true
			}
			if found, differ := firstDifference(a, b, pointer+"/"+escape(key)); differ {
				return found, true
			}
		}
		return "", false
	}
	gl, gList := given.([]any)
	kl, kList := kept.([]any)
	if gList && kList && len(gl) == len(kl) {
		for i := range gl {
			if found, differ := firstDifference(gl[i], kl[i], fmt.Sprintf("%s/%d", pointer, i)); differ {
				return found, true
			}
		}
		return "", false
	}
	return pointer, !reflect.DeepEqual(given, kept)
}

func plain(data []byte) any {
	var value any
	if json.Unmarshal(data, &value) != nil {
		return nil
	}
	return value
}

func replay(path string) (map[string]any, error) {
	all, err := readFrames(path)
	if err != nil {
		return nil, err
	}
	protocol := fmt.Sprintf("v%d", negotiated(all))
	eds, known := editions[protocol]
	if !known {
		protocol, eds = "v1", editions["v1"]
	}
	table := tables[protocol]
	widest := eds[len(eds)-1].name
	state := acp.NewClientState(table)
	problems, dropped, extensions, unknown := []any{}, []any{}, []any{}, []any{}
	type request struct {
		method string
		params json.RawMessage
	}
	asked := map[string]request{}
	idKey := func(dir string, id json.RawMessage) string { return dir + ":" + string(id) }
	for _, f := range all {
		where := func(more map[string]any) map[string]any {
			out := map[string]any{"frame": f.index, "line": f.line, "dir": f.dir}
			for k, v := range more {
				out[k] = v
			}
			return out
		}
		m := message(f.raw)
		if m == nil {
			problems = append(problems, where(map[string]any{"edition": protocol, "method": nil, "pointer": "", "message": "not a JSON-RPC message"}))
			continue
		}
		method, isCall := text(m["method"])
		var part string
		var payload, params json.RawMessage
		var decoders []decoder
		if isCall {
			_, isRequest := m["id"]
			if isRequest {
				asked[idKey(f.dir, m["id"])] = request{method, m["params"]}
			}
			if strings.HasPrefix(method, "_") {
				extensions = append(extensions, where(map[string]any{"method": method}))
				continue
			}
			part, payload = "params", m["params"]
			if payload == nil {
				payload = json.RawMessage("{}")
			}
			for _, e := range eds {
				var d decoder
				if s := spec(e, method, isRequest); s != nil {
					d = s.DecodeParams
				}
				decoders = append(decoders, d)
			}
		} else {
			if result, ok := m["result"]; ok {
				part, payload = "result", result
			} else if failure, ok := m["error"]; ok {
				part, payload = "error", failure
			} else {
				continue
			}
			other := map[string]string{"sent": "received", "received": "sent"}[f.dir]
			found, ok := asked[idKey(other, m["id"])]
			if !ok || strings.HasPrefix(found.method, "_") {
				continue
			}
			method, params = found.method, found.params
			for _, e := range eds {
				var d decoder
				if s := spec(e, method, true); s != nil {
					d = s.DecodeResult
					if part == "error" {
						d = typeDecoder(e, "Error")
					}
				}
				decoders = append(decoders, d)
			}
		}
		ok := true
		for i, e := range eds {
			if decoders[i] == nil {
				if e.name == widest {
					unknown = append(unknown, where(map[string]any{"method": method}))
					ok = false
				}
				continue
			}
			pointer, what, failed := "", "", false
			value, err := decoders[i](payload)
			var decodeError *wire.DecodeError
			if errors.As(err, &decodeError) {
				pointer, what, failed = "/"+part+decodeError.Pointer(), decodeError.Error(), true
			} else if err != nil {
				pointer, what, failed = "/"+part, err.Error(), true
			} else if again, err := json.Marshal(value); err != nil {
				pointer, what, failed = "/"+part, "encoding the decoded value: "+err.Error(), true
			} else if at, differ := firstDifference(plain(payload), plain(again), "/"+part); differ {
				dropped = append(dropped, where(map[string]any{"edition": e.name, "method": method, "pointer": at}))
			}
			if failed {
				ok = false
				problems = append(problems, where(map[string]any{"edition": e.name, "method": method, "pointer": pointer, "message": what}))
			}
		}
		if !ok {
			continue // a client feeds its state only what decodes
		}
		fed := map[string]any{"method": method}
		if isCall && (f.dir == "received" || method == table.Turn) {
			fed["params"], _ = acp.JSONValues(payload)
		} else if !isCall && f.dir == "received" && part == "result" {
			if params != nil {
				fed["params"], _ = acp.JSONValues(params)
			}
			fed["result"], _ = acp.JSONValues(payload)
		} else {
			continue
		}
		state.Apply(fed)
	}
	return map[string]any{"protocol": protocol, "problems": problems, "dropped": dropped, "extensions": extensions, "unknown": unknown, "state": state.Snapshot()}, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: replay RECORDING.jsonl")
		os.Exit(2)
	}
	report, err := replay(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := json.Marshal(report)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(string(out))
}
