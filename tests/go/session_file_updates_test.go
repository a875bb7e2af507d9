package tests

// A store file's history on disk (session_file_updates.go), as the TypeScript runtime keeps it
// (session_file_updates.ts; tests/typescript/session_file_updates.test.ts holds the same rules):
// "nothing acknowledged is ever lost" — a store opened again replays what the one before it
// recorded; a line the process died writing was never acknowledged and is cut off; the log stays
// bounded by what the sessions keep. The corpus's reopen cases hold the replays on every backend.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	acp "acp-protocol-sdk"
)

func chunkUpdate(text string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%q}}`, text))
}

func replayedTexts(t *testing.T, store *acp.SessionStore, id string) ([]string, int) {
	t.Helper()
	replay := store.ReadUpdates(id)
	texts := []string{}
	for _, update := range replay.Updates {
		var chunk struct {
			Content struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal(update, &chunk); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, chunk.Content.Text)
	}
	return texts, replay.Dropped
}

func TestSessionHistoryALineTheProcessDiedWritingIsCutOff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.json")
	store := openSessionFile(t, path)
	if err := store.AppendUpdates("s", []json.RawMessage{chunkUpdate("1"), chunkUpdate("2")}); err != nil {
		t.Fatal(err)
	}
	_ = store.Close()
	log, err := os.OpenFile(path+".updates", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = log.WriteString(`["s",3,{"sessionUpd`)
	_ = log.Close()
	again := openSessionFile(t, path)
	if texts, _ := replayedTexts(t, again, "s"); !reflect.DeepEqual(texts, []string{"1", "2"}) {
		t.Fatalf("replayed %v after a torn line", texts)
	}
	if err := again.AppendUpdates("s", []json.RawMessage{chunkUpdate("3")}); err != nil {
		t.Fatal(err)
	}
	_ = again.Close()
	third := openSessionFile(t, path)
	if texts, dropped := replayedTexts(t, third, "s"); !reflect.DeepEqual(texts, []string{"1", "2", "3"}) || dropped != 0 {
		t.Fatalf("replayed %v (dropped %d)", texts, dropped)
	}
}

func TestSessionHistoryLogIsWrittenAgainWithWhatTheSessionsKeep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.json")
	store := openSessionFile(t, path)
	store.HistoryLimit = 5
	for turn := 1; turn <= 200; turn++ {
		id := map[bool]string{true: "a", false: "b"}[turn%2 == 1]
		if err := store.AppendUpdates(id, []json.RawMessage{chunkUpdate(fmt.Sprint(turn))}); err != nil {
			t.Fatal(err)
		}
	}
	_ = store.Close()
	text, _ := os.ReadFile(path + ".updates")
	if lines := strings.Count(string(text), "\n"); lines > 1+2*10+64 {
		t.Fatalf("the log holds %d lines for 10 kept updates", lines)
	}
	again := openSessionFile(t, path)
	again.HistoryLimit = 5
	if texts, dropped := replayedTexts(t, again, "a"); !reflect.DeepEqual(texts, []string{"191", "193", "195", "197", "199"}) || dropped != 95 {
		t.Fatalf("a: replayed %v (dropped %d)", texts, dropped)
	}
	if texts, dropped := replayedTexts(t, again, "b"); !reflect.DeepEqual(texts, []string{"192", "194", "196", "198", "200"}) || dropped != 95 {
		t.Fatalf("b: replayed %v (dropped %d)", texts, dropped)
	}
}

func TestSessionHistoryLogOfAnotherFormatOrABrokenLineIsRefusedNamingIt(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`{"format":"something-else"}` + "\n", "sessions.json.updates is not a session history of format acp-codegen-session-updates/jsonl-1"},
		{`{"format":"acp-codegen-session-updates/jsonl-1"}` + "\n" + `["s",1,{}]` + "\nnot json\n" + `["s",2,{}]` + "\n", "sessions.json.updates:3: not a [sessionId, seq, update] line"},
	} {
		path := filepath.Join(t.TempDir(), "sessions.json")
		if err := os.WriteFile(path+".updates", []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := acp.OpenSessionFile(path); err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Fatalf("want an error ending %q, got %v", c.want, err)
		}
	}
}

// The TypeScript runtime's log, byte for byte as session_file_updates.ts writes it: Go replays it
// and goes on numbering after it.
func TestSessionHistoryReadsTheTypeScriptRuntimesLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.json")
	log := `{"format":"acp-codegen-session-updates/jsonl-1"}` + "\n" +
		`["s",1,{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"1"}}]` + "\n" +
		`["t",7,{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"7"}}]` + "\n"
	if err := os.WriteFile(path+".updates", []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	store := openSessionFile(t, path)
	if texts, dropped := replayedTexts(t, store, "t"); !reflect.DeepEqual(texts, []string{"7"}) || dropped != 6 {
		t.Fatalf("t: replayed %v (dropped %d)", texts, dropped)
	}
	if err := store.AppendUpdates("s", []json.RawMessage{chunkUpdate("2")}); err != nil {
		t.Fatal(err)
	}
	_ = store.Close()
	written, _ := os.ReadFile(path + ".updates")
	if want := log + `["s",2,{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"2"}}]` + "\n"; string(written) != want {
		t.Fatalf("the log is\n%s\nwant\n%s", written, want)
	}
}
