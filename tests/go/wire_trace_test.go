package tests

// ACP_TRACE=FILE on the Go runtime (runtime/wire_trace.go): each line an agent reads is
// recorded as tests/corpus/wire_trace/read_lines.json says (the cases the Python and TypeScript
// runtimes' tests read: a line that is not UTF-8 is "hex:" and its bytes), and "{pid}"/"{n}"
// name each connection's file.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

type wireTraceCase struct {
	Name    string         `json:"name"`
	LineHex string         `json:"line_hex"`
	Record  map[string]any `json:"record"`
}

// traceConnection runs a connection with ACP_TRACE=template that reads input, until it closes.
func traceConnection(t *testing.T, template string, input []byte) {
	t.Helper()
	t.Setenv("ACP_TRACE", template)
	conn := acp.NewConnection(acp.NewStreamTransport(bytes.NewReader(input), io.Discard), acp.MethodHandlers{})
	select {
	case <-conn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not close at the end of its input")
	}
	_ = conn.Close()
}

func TestACPTraceRecordsEachLineReadAsTheSharedCorpusSays(t *testing.T) {
	data, err := os.ReadFile("../corpus/wire_trace/read_lines.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []wireTraceCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			line, err := hex.DecodeString(c.LineHex)
			if err != nil {
				t.Fatal(err)
			}
			folder := t.TempDir()
			traceConnection(t, filepath.Join(folder, "agent-{n}.jsonl"), append(line, '\n'))
			names, _ := filepath.Glob(filepath.Join(folder, "agent-*.jsonl"))
			if len(names) != 1 {
				t.Fatalf("recordings: %v", names)
			}
			text, _ := os.ReadFile(names[0])
			lines := bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n"))
			if len(lines) < 2 {
				t.Fatalf("no frame recorded: %q", text)
			}
			var header, record map[string]any
			if json.Unmarshal(lines[0], &header) != nil || json.Unmarshal(lines[1], &record) != nil {
				t.Fatalf("not JSON: %q", text)
			}
			if header["side"] != "agent" {
				t.Fatalf("side %v, want agent", header["side"])
			}
			if at, ok := record["t"].(float64); !ok || at < 0 {
				t.Fatalf("t: %v", record["t"])
			}
			delete(record, "t")
			if !reflect.DeepEqual(record, c.Record) {
				t.Fatalf("recorded %v, want %v", record, c.Record)
			}
		})
	}
}

func TestACPTracePidAndNNameEachConnectionAndAPlainNameGetsItsNumber(t *testing.T) {
	folder := t.TempDir()
	pid := strconv.Itoa(os.Getpid())
	traceConnection(t, filepath.Join(folder, "a-{pid}-{n}.jsonl"), nil)
	traceConnection(t, filepath.Join(folder, "a-{pid}-{n}.jsonl"), nil)
	var numbers []int
	names, _ := filepath.Glob(filepath.Join(folder, "a-*.jsonl"))
	pattern := regexp.MustCompile(`^a-` + pid + `-(\d+)\.jsonl$`)
	for _, name := range names {
		match := pattern.FindStringSubmatch(filepath.Base(name))
		if match == nil {
			t.Fatalf("unexpected recording %s", name)
		}
		n, _ := strconv.Atoi(match[1])
		numbers = append(numbers, n)
	}
	sort.Ints(numbers)
	if len(numbers) != 2 || numbers[1] != numbers[0]+1 {
		t.Fatalf("connection numbers %v, want two consecutive", numbers)
	}
	// The next connections are numbers[1]+1 and +2 (> 1): without {n}, the number goes before
	// the extension (or at the end).
	traceConnection(t, filepath.Join(folder, "plain.jsonl"), nil)
	traceConnection(t, filepath.Join(folder, "b-{pid}"), nil)
	for _, want := range []string{
		fmt.Sprintf("plain.%d.jsonl", numbers[1]+1),
		fmt.Sprintf("b-%s.%d", pid, numbers[1]+2),
	} {
		if _, err := os.Stat(filepath.Join(folder, want)); err != nil {
			t.Fatalf("no %s: %v", want, err)
		}
	}
}
