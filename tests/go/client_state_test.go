package tests

// The client-state corpus (tests/corpus/state/, its README.md) replayed on the Go runtime: each
// case is a fresh acp.ClientState of the edition's generated table (v1.StateTable for v1.jsonl,
// the v2 unstable schema's for v2.jsonl, a superset of the stable one), fed the case's state
// messages in order; after each one the changes it reports and the whole state must equal the
// line's, compared as JSON values. The Python and TypeScript runtimes replay the same files
// (tests/runtime/test_session_state.py).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v2unstable "acp-protocol-sdk/v2/unstable"
)

type stateStep struct {
	Case    string          `json:"case"`
	Message json.RawMessage `json:"message"`
	Changes json.RawMessage `json:"changes"`
	Expect  json.RawMessage `json:"expect"`
}

// stateCorpus is the lines of tests/corpus/state/<protocol>.jsonl, grouped by case in file order.
func stateCorpus(t *testing.T, protocol string) (names []string, cases map[string][]stateStep) {
	t.Helper()
	data, err := os.ReadFile("../corpus/state/" + protocol + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cases = map[string][]stateStep{}
	lines := bufio.NewScanner(bytes.NewReader(data))
	lines.Buffer(nil, 1<<24)
	last := ""
	for lines.Scan() {
		if len(bytes.TrimSpace(lines.Bytes())) == 0 {
			continue
		}
		var step stateStep
		if err := json.Unmarshal(lines.Bytes(), &step); err != nil {
			t.Fatalf("%s.jsonl: %v", protocol, err)
		}
		if step.Case != last {
			if _, seen := cases[step.Case]; seen {
				t.Fatalf("%s.jsonl: case %q is not consecutive", protocol, step.Case)
			}
			names = append(names, step.Case)
			last = step.Case
		}
		cases[step.Case] = append(cases[step.Case], step)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return names, cases
}

// stateMessage decodes a state message as the client does: numbers kept exact (json.Number).
func stateMessage(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var message map[string]any
	if err := decoder.Decode(&message); err != nil {
		t.Fatal(err)
	}
	return message
}

// asJSON is value as a JSON value (marshalled, then decoded): what the corpus compares.
func asJSON(t *testing.T, value any) any {
	t.Helper()
	data, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEachStateCaseEndsEachStepWithTheCorpusState(t *testing.T) {
	tables := map[string]*acp.StateTable{"v1": v1.StateTable, "v2": v2unstable.StateTable}
	for _, protocol := range []string{"v1", "v2"} {
		names, cases := stateCorpus(t, protocol)
		if len(names) == 0 {
			t.Fatalf("%s.jsonl has no case", protocol)
		}
		for _, name := range names {
			t.Run(protocol+": "+name, func(t *testing.T) {
				state := acp.NewClientState(tables[protocol])
				for index, step := range cases[name] {
					applied := state.Apply(stateMessage(t, step.Message))
					changes := applied.Changes
					if changes == nil {
						changes = []acp.StateChange{}
					}
					if got, want := asJSON(t, changes), asJSON(t, step.Changes); !reflect.DeepEqual(got, want) {
						t.Fatalf("step %d: changes\n got %s\nwant %s", index, show(got), show(want))
					}
					if got, want := asJSON(t, state.Snapshot()), asJSON(t, step.Expect); !reflect.DeepEqual(got, want) {
						t.Fatalf("step %d: state\n got %s\nwant %s", index, show(got), show(want))
					}
				}
			})
		}
	}
}

func show(value any) string {
	data, _ := json.Marshal(value)
	return string(data)
}

func TestApplyingNeverPanicsOnOddMessages(t *testing.T) {
	state := acp.NewClientState(v2unstable.StateTable)
	odd := []string{
		`{}`,
		`{"method": 3}`,
		`{"method": "session/update"}`,
		`{"method": "session/update", "params": null}`,
		`{"method": "session/update", "params": {"sessionId": "s", "update": null}}`,
		`{"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": 1}}}`,
		`{"method": "session/update", "params": {"sessionId": 5, "update": {}}}`,
		`{"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": "not base64!"}}}`,
		`{"method": "auth/status", "params": {}, "result": null}`,
	}
	for _, message := range odd {
		state.Apply(stateMessage(t, json.RawMessage(message)))
	}
	if _, err := json.Marshal(state.Snapshot()); err != nil {
		t.Fatalf("the state is no longer plain JSON: %v", err)
	}
	problems := state.Session("s").Problems()
	if len(problems) != 1 || problems[0].Pointer != "/params/update/data" || problems[0].Reason != "type" {
		t.Fatalf("the bad base64 chunk is not its one problem: %+v", problems)
	}
}

func TestAStateSnapshotIsACopy(t *testing.T) {
	state := acp.NewClientState(v2unstable.StateTable)
	state.Apply(stateMessage(t, json.RawMessage(`{"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": "plan_update", "plan": {"planId": "p", "entries": []}}}}`)))
	snapshot := state.Snapshot()
	plan := snapshot["sessions"].(map[string]any)["s"].(map[string]any)["targets"].(map[string]any)["plan"].([]any)
	value := plan[0].(map[string]any)["value"].(map[string]any)
	value["entries"] = append(value["entries"].([]any), "x")
	entries := state.Session("s").Entries("plan")
	if got := show(entries); got != `[{"id":"p","value":{"entries":[],"planId":"p"}}]` {
		t.Fatalf("changing a snapshot changed the state: %s", got)
	}
}

func TestStateListenersHearEachAppliedMessageOfTheirSession(t *testing.T) {
	state := acp.NewClientState(v2unstable.StateTable)
	var mu sync.Mutex
	var heard []string
	stop := state.OnStateChange(func(applied acp.StateApplied) {
		mu.Lock()
		defer mu.Unlock()
		for _, change := range applied.Changes {
			heard = append(heard, fmt.Sprintf("%s %s %s", *change.Session, change.Target, change.Action))
		}
		if applied.Logged {
			heard = append(heard, "logged")
		}
	}, "a")
	state.OnStateChange(func(acp.StateApplied) { panic("a listener that panics") })
	update := func(session, update string) {
		state.Feed(stateMessage(t, json.RawMessage(`{"method": "session/update", "params": {"sessionId": "`+session+`", "update": `+update+`}}`)))
	}
	update("a", `{"sessionUpdate": "state_update", "state": "running"}`)
	update("b", `{"sessionUpdate": "state_update", "state": "running"}`)
	update("a", `{"sessionUpdate": "_vendor"}`)
	stop()
	update("a", `{"sessionUpdate": "state_update", "state": "idle"}`)
	if got := show(heard); got != `["a state replace","logged"]` {
		t.Fatalf("heard %s", got)
	}
}
