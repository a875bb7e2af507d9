package tests

// The envelope rule book (tests/wire/envelope_corpus.json), case by case, on the Go runtime: each
// case is a fresh connection over a pipe fed the case's lines; it must write exactly the case's
// answers (ids compared exactly, never through a float64) and hand exactly the case's
// notifications to its handler, and still answer a probe afterwards. The Python and TypeScript
// runtimes run the same file (tests/runtime/test_envelope_corpus.py,
// tests/typescript/envelope_corpus.test.ts). A case in the MCP or LSP dialect runs on a
// connection speaking it (acp.Speaking(acp.MCP), acp.Speaking(acp.LSP)). Every case runs twice:
// its lines as NDJSON lines, and as the bodies of LSP base protocol messages (acp.ContentLength).

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

type bookAnswer struct {
	ID     string          `json:"id"`
	Error  *int            `json:"error"`
	Result json.RawMessage `json:"result"`
}

type bookCase struct {
	Name    string            `json:"name"`
	Dialect string            `json:"dialect"`
	Send    []json.RawMessage `json:"send"`
	Answers []bookAnswer      `json:"answers"`
	Handled []json.RawMessage `json:"handled"`
}

type ruleBook struct {
	Cases []bookCase `json:"cases"`
}

const probeID = `"probe: the connection still answers"`

func readRuleBook(t *testing.T) ruleBook {
	t.Helper()
	data, err := os.ReadFile("../wire/envelope_corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var book ruleBook
	if err := json.Unmarshal(data, &book); err != nil {
		t.Fatal(err)
	}
	return book
}

// lineBytes is a case's line: a string is its UTF-8 text, {"hex": …} raw bytes.
func lineBytes(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []byte(text)
	}
	var encoded struct {
		Hex string `json:"hex"`
	}
	if err := json.Unmarshal(raw, &encoded); err != nil {
		t.Fatal(err)
	}
	line, err := hex.DecodeString(encoded.Hex)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

var wholeNumber = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)

// canonical is a JSON value's text with object keys sorted and integers written exactly, so two
// spellings of one value compare equal and 2^53+1 stays apart from 2^53.
func canonical(raw []byte) string {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return "(not JSON: " + string(raw) + ")"
	}
	var out strings.Builder
	writeCanonical(&out, value)
	return out.String()
}

func writeCanonical(out *strings.Builder, value any) {
	switch v := value.(type) {
	case json.Number:
		if wholeNumber.MatchString(v.String()) {
			whole, _ := new(big.Int).SetString(v.String(), 10)
			out.WriteString(whole.String())
		} else {
			float, _ := v.Float64()
			fmt.Fprint(out, float)
		}
	case []any:
		out.WriteByte('[')
		for i, item := range v {
			if i > 0 {
				out.WriteByte(',')
			}
			writeCanonical(out, item)
		}
		out.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for key := range v {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		out.WriteByte('{')
		for i, key := range keys {
			if i > 0 {
				out.WriteByte(',')
			}
			name, _ := json.Marshal(key)
			out.Write(name)
			out.WriteByte(':')
			writeCanonical(out, v[key])
		}
		out.WriteByte('}')
	default:
		text, _ := json.Marshal(v)
		out.Write(text)
	}
}

func answerKey(id []byte, code *int, result []byte) string {
	if code != nil {
		return fmt.Sprintf("id %s error %d", canonical(id), *code)
	}
	if result == nil {
		result = []byte("null")
	}
	return fmt.Sprintf("id %s result %s", canonical(id), canonical(result))
}

// ruleBookHandler knows "echo" (answers its params, null when absent) and "hold" (answers only
// when cancelled), answers every other request -32601 and records every notification.
type ruleBookHandler struct {
	mu      sync.Mutex
	handled []string
}

func (h *ruleBookHandler) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "echo":
		if params == nil {
			return nil, nil
		}
		return params, nil
	case "hold":
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	return nil, acp.MethodNotFoundError(method)
}

func (h *ruleBookHandler) HandleNotification(ctx context.Context, method string, params json.RawMessage) {
	if params == nil {
		params = json.RawMessage("null")
	}
	name, _ := json.Marshal(method)
	h.mu.Lock()
	h.handled = append(h.handled, fmt.Sprintf(`{"method":%s,"params":%s}`, name, params))
	h.mu.Unlock()
}

func (h *ruleBookHandler) record() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.handled))
	for i, item := range h.handled {
		out[i] = canonical([]byte(item))
	}
	return out
}

// fed is what one connection over framing answered to lines followed by the probe: answer keys
// counted.
func fed(t *testing.T, framing acp.Framing, lines [][]byte, expected int, wait time.Duration, options ...acp.Option) (map[string]int, *ruleBookHandler) {
	t.Helper()
	handler := &ruleBookHandler{}
	ours, theirs := acp.Pipe(framing)
	conn := acp.NewConnection(ours, handler, options...)
	answers := map[string]int{}
	probed := make(chan struct{})
	var mu sync.Mutex
	total := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			frame, err := theirs.ReadFrame()
			if err != nil {
				return
			}
			var answer struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			mu.Lock()
			switch {
			case json.Unmarshal(frame, &answer) != nil || answer.JSONRPC != "2.0" || answer.ID == nil:
				answers["not a response: "+string(frame)]++
			case string(answer.ID) == probeID:
				close(probed)
			case answer.Error != nil:
				answers[answerKey(answer.ID, &answer.Error.Code, nil)]++
			default:
				answers[answerKey(answer.ID, nil, answer.Result)]++
			}
			total++
			mu.Unlock()
		}
	}()
	go func() {
		for _, line := range lines {
			if theirs.WriteFrame(line) != nil {
				return
			}
		}
		_ = theirs.WriteFrame([]byte(`{"jsonrpc":"2.0","id":` + probeID + `,"method":"echo"}`))
	}()
	deadline := time.After(wait)
	for waiting := true; waiting; {
		select {
		case <-probed:
			mu.Lock()
			waiting = total-1 < expected
			mu.Unlock()
			if waiting {
				time.Sleep(10 * time.Millisecond)
			}
		case <-deadline:
			waiting = false
			select {
			case <-probed:
			default:
				mu.Lock()
				answers["(the probe was never answered)"]++
				mu.Unlock()
			}
		}
	}
	time.Sleep(20 * time.Millisecond) // an answer too many shows in answers
	_ = conn.Close()
	_ = theirs.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return answers, handler
}

// bookDialects are the rule book's dialects by the name a case gives ("": ACP).
var bookDialects = map[string]acp.Dialect{"": acp.ACP, "acp": acp.ACP, "lsp": acp.LSP, "mcp": acp.MCP}

func TestEnvelopeRuleBook(t *testing.T) {
	book := readRuleBook(t)
	for _, framing := range []acp.Framing{acp.NDJSON, acp.ContentLength} {
		t.Run(framing.String(), func(t *testing.T) { runRuleBook(t, book, framing) })
	}
}

func runRuleBook(t *testing.T, book ruleBook, framing acp.Framing) {
	ran := map[string]int{}
	for _, kase := range book.Cases {
		dialect, known := bookDialects[kase.Dialect]
		if !known {
			t.Errorf("%s: unknown dialect %q", kase.Name, kase.Dialect)
			continue
		}
		ran[dialect.Name]++
		t.Run(kase.Name, func(t *testing.T) {
			expected := map[string]int{}
			for _, answer := range kase.Answers {
				expected[answerKey([]byte(answer.ID), answer.Error, answer.Result)]++
			}
			lines := make([][]byte, len(kase.Send))
			for i, raw := range kase.Send {
				lines[i] = lineBytes(t, raw)
			}
			count := 0
			for _, n := range expected {
				count += n
			}
			got, handler := fed(t, framing, lines, count, 2*time.Second, acp.Speaking(dialect))
			if fmt.Sprint(got) != fmt.Sprint(expected) {
				t.Errorf("answers %v, expected %v", got, expected)
			}
			want := make([]string, len(kase.Handled))
			for i, item := range kase.Handled {
				want[i] = canonical(item)
			}
			if handed := handler.record(); fmt.Sprint(handed) != fmt.Sprint(want) {
				t.Errorf("handed %v, expected %v", handed, want)
			}
		})
	}
	if ran["acp"] < 120 || ran["lsp"] != 5 || ran["mcp"] != 4 {
		t.Fatalf("ran %v cases by dialect: the book changed shape", ran)
	}
}

// fuzzBook is the seeded fuzz's frames and their required outcome, as the Python generator and
// oracle of the rule book write them (tests/go/test_go_envelope_fuzz.py).
type fuzzBook struct {
	Answers []struct {
		bookAnswer
		Count int `json:"count"`
	} `json:"answers"`
	Handled []json.RawMessage `json:"handled"`
}

// TestEnvelopeFuzz feeds the rule book's seeded frames (at least 50,000) to one connection:
// every answer required and none other, every notification handed over in order. It runs when
// ACP_ENVELOPE_FUZZ names the folder the driver wrote (frames.ndjson, expected.json).
func TestEnvelopeFuzz(t *testing.T) {
	folder := os.Getenv("ACP_ENVELOPE_FUZZ")
	if folder == "" {
		t.Skip("run by tests/go/test_go_envelope_fuzz.py, which writes the frames")
	}
	data, err := os.ReadFile(folder + "/frames.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var book fuzzBook
	raw, err := os.ReadFile(folder + "/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &book); err != nil {
		t.Fatal(err)
	}
	expected := map[string]int{}
	count := 0
	for _, answer := range book.Answers {
		expected[answerKey([]byte(answer.ID), answer.Error, answer.Result)] += answer.Count
		count += answer.Count
	}
	got, handler := fed(t, acp.NDJSON, lines, count, 60*time.Second)
	if missing, unexpected := differences(expected, got), differences(got, expected); len(missing)+len(unexpected) > 0 {
		t.Fatalf("%d frames: %d answers missing (%s), %d unexpected (%s)",
			len(lines), len(missing), strings.Join(first(missing, 3), "; "), len(unexpected), strings.Join(first(unexpected, 3), "; "))
	}
	want := make([]string, len(book.Handled))
	for i, item := range book.Handled {
		want[i] = canonical(item)
	}
	handed := handler.record()
	if len(handed) != len(want) {
		t.Fatalf("handed %d notifications, expected %d", len(handed), len(want))
	}
	for i := range want {
		if handed[i] != want[i] {
			t.Fatalf("notification %d: handed %s, expected %s", i, handed[i], want[i])
		}
	}
	t.Logf("%d frames: %d answers, %d notifications, as the book requires", len(lines), count, len(want))
}

// differences is what a has more of than b, one entry per answer.
func differences(a, b map[string]int) []string {
	var out []string
	for key, n := range a {
		for i := b[key]; i < n; i++ {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out
}

func first(items []string, n int) []string {
	if len(items) < n {
		return items
	}
	return items[:n]
}
