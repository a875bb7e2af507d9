// Command client_state is workload (s) on our generated Go package (bench/client_state_go.py runs
// it): what keeping the client state costs beside decoding the updates that feed it, measured as
// the Python row is (bench/client_state.py). The frames are bench/client_state.py's, one JSON-RPC
// session/update a line, read from FRAMES. Per run, interleaved, in this one process:
//   - decode: each frame's params decoded into the generated v2.UpdateSessionNotification with the
//     schema's checks (its UnmarshalJSON, as the client's handler does before anything sees it);
//   - apply: the params, decoded as JSON values, applied to a fresh acp.ClientState of the v2
//     table (ClientState.Apply, what the handler adds per update);
//   - feed: the params' bytes decoded as JSON values and applied (what the generated handler does
//     per update, acp.Feeding: Go's typed decode gives no JSON values to apply). Not a goal row.
//
// Each phase starts from a collected heap (runtime.GC), so neither pays for the other's garbage.
// Usage: client_state FRAMES RUNS; prints {"decode": [s…], "apply": [s…], "feed": [s…]} (the
// first round warms up, untimed).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
)

const method = "session/update"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "client_state:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 3 {
		return fmt.Errorf("usage: client_state FRAMES RUNS")
	}
	runs, err := strconv.Atoi(os.Args[2])
	if err != nil {
		return err
	}
	params, err := readParams(os.Args[1])
	if err != nil {
		return err
	}
	decoded := make([]map[string]any, len(params))
	for i, raw := range params {
		if decoded[i], err = values(raw); err != nil {
			return err
		}
	}
	found := map[string][]float64{"decode": {}, "apply": {}, "feed": {}}
	for round := 0; round <= runs; round++ {
		runtime.GC()
		started := time.Now()
		for _, raw := range params {
			var update v2.UpdateSessionNotification
			if err := update.UnmarshalJSON(raw); err != nil {
				return fmt.Errorf("a frame does not decode: %w", err)
			}
		}
		decode := time.Since(started).Seconds()

		state := acp.NewClientState(v2.StateTable)
		runtime.GC()
		started = time.Now()
		for _, message := range decoded {
			state.Apply(map[string]any{"method": method, "params": message})
		}
		apply := time.Since(started).Seconds()
		if len(state.Session("s-1").Log()) > 0 {
			return fmt.Errorf("an update of the workload was not applied")
		}

		state = acp.NewClientState(v2.StateTable)
		runtime.GC()
		started = time.Now()
		for _, raw := range params {
			message, err := values(raw)
			if err != nil {
				return err
			}
			state.Apply(map[string]any{"method": method, "params": message})
		}
		feed := time.Since(started).Seconds()
		if round == 0 {
			continue
		}
		found["decode"] = append(found["decode"], decode)
		found["apply"] = append(found["apply"], apply)
		found["feed"] = append(found["feed"], feed)
	}
	return json.NewEncoder(os.Stdout).Encode(found)
}

// readParams is the params of each frame of the file at path, as bytes.
func readParams(path string) ([]json.RawMessage, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var out []json.RawMessage
	lines := bufio.NewScanner(file)
	lines.Buffer(nil, 1<<24)
	for lines.Scan() {
		var frame struct {
			Params json.RawMessage `json:"params"`
		}
		if len(bytes.TrimSpace(lines.Bytes())) == 0 {
			continue
		}
		if err := json.Unmarshal(lines.Bytes(), &frame); err != nil {
			return nil, err
		}
		out = append(out, frame.Params)
	}
	return out, lines.Err()
}

// values is raw decoded as JSON values, as the client's handler feeds them (acp.JSONValues).
func values(raw json.RawMessage) (map[string]any, error) {
	value, err := acp.JSONValues(raw)
	out, _ := value.(map[string]any)
	return out, err
}
