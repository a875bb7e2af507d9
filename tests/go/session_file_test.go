package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	acp "acp-protocol-sdk"
	"acp-protocol-sdk/wire"
)

// A store file as the TypeScript runtime's FileSessionStore writes it (session_file.ts, clock
// 2026-11-21T12:00:00Z: three creates, a _meta set on s-1, s-3's title cleared with a given
// updatedAt), byte for byte. The other way, the TypeScript store reads what Go writes (checked
// by hand: the same pages and cursors, and its next session after Go's).
const typeScriptStoreFile = `{"format":"acp-codegen-session-store/json-1","next":4,"sessions":[` +
	`[1,{"sessionId":"s-1","cwd":"/work","title":"First <\"é\"> & co","updatedAt":"2026-11-21T12:00:00Z","meta":{"a":{"b":1},"z":[true,null]}}],` +
	`[2,{"sessionId":"s-2","cwd":"/other","title":null,"updatedAt":"2026-11-21T12:00:00Z","meta":null}],` +
	`[3,{"sessionId":"s-3","cwd":"/work","title":null,"updatedAt":"2026-11-22T08:30:00Z","meta":null}]]}` + "\n"

func openSessionFile(t *testing.T, path string) *acp.SessionStore {
	t.Helper()
	store, err := acp.OpenSessionFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// entries is what a folder holds, by name.
func entries(t *testing.T, folder string) []string {
	t.Helper()
	found, err := os.ReadDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, entry := range found {
		names = append(names, entry.Name())
	}
	return names
}

// pages is every page of session/list in cwd, as JSON, with the cursors that led to them.
func pages(t *testing.T, store *acp.SessionStore, cwd string) []string {
	t.Helper()
	var all []string
	cursor := ""
	for {
		page, err := store.ListSessions(cwd, cursor)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := json.Marshal(page)
		all = append(all, cursor+" "+string(text))
		if cursor = page.NextCursor; cursor == "" {
			return all
		}
	}
}

func TestSessionFileReopenedHoldsTheSameSessionsOrderAndCursors(t *testing.T) {
	folder := t.TempDir()
	path := filepath.Join(folder, "sessions.json")
	store := openSessionFile(t, path)
	store.PageSize, store.Clock = 3, clockAt("2026-11-21T12:00:00Z")
	for index := range 8 {
		if record := store.Create(fmt.Sprintf("s%d", index), []string{"/a", "/b"}[index%3/2], wire.Opt[string]{}); record.SessionID == "" {
			t.Fatal(store.Err())
		}
	}
	if _, err := store.Change("s4", acp.SessionChange{Title: wire.Some("four"), Meta: wire.Some(map[string]json.RawMessage{"k": json.RawMessage(`{"deep":[1,2]}`)})}); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.ApplyUpdate("mirrored", json.RawMessage(`{"sessionUpdate":"session_info_update","title":"from a peer"}`)); !ok {
		t.Fatal(store.Err())
	}
	again := openSessionFile(t, path)
	again.PageSize = 3
	for _, cwd := range []string{"", "/a", "/b"} {
		if before, after := pages(t, store, cwd), pages(t, again, cwd); !reflect.DeepEqual(before, after) {
			t.Fatalf("in %q\nbefore %v\nafter  %v", cwd, before, after)
		}
	}
	first, _ := store.ListSessions("", "")
	if page, err := again.ListSessions("", first.NextCursor); err != nil || page.Sessions[0].SessionID != "s3" {
		t.Fatalf("a cursor of the first store in the reopened one: %+v %v", page, err)
	}
	if before, _ := store.Get("s4"); !reflect.DeepEqual(before, mustGet(t, again, "s4")) {
		t.Fatalf("%+v", before)
	}
	again.Create("s8", "/a", wire.Opt[string]{}) // positions go on after the file's
	if all := pages(t, openSessionFile(t, path), ""); !strings.Contains(all[len(all)-1], `"s8"`) {
		t.Fatalf("%v", all)
	}
}

func mustGet(t *testing.T, store *acp.SessionStore, id string) acp.SessionRecord {
	t.Helper()
	record, ok := store.Get(id)
	if !ok {
		t.Fatalf("no session %s", id)
	}
	return record
}

func TestSessionFileAcknowledgedChangesSurviveSIGKILL(t *testing.T) {
	// "Nothing acknowledged is ever lost": a helper process (this test binary again) records and
	// retitles sessions, printing each change once its method returned; it is killed mid-way.
	if path := os.Getenv("ACP_SESSION_FILE_WRITER"); path != "" {
		writeSessionsUntilKilled(path)
		return
	}
	path := filepath.Join(t.TempDir(), "sessions.json")
	writer := exec.Command(os.Args[0], "-test.run=^TestSessionFileAcknowledgedChangesSurviveSIGKILL$")
	writer.Env = append(os.Environ(), "ACP_SESSION_FILE_WRITER="+path)
	writer.Stderr = os.Stderr
	output, err := writer.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	var acknowledged []string
	lines := bufio.NewScanner(output)
	for len(acknowledged) < 200 && lines.Scan() {
		acknowledged = append(acknowledged, lines.Text())
	}
	_ = writer.Process.Kill() // SIGKILL on Unix
	for lines.Scan() {        // what it acknowledged before the signal landed
		acknowledged = append(acknowledged, lines.Text())
	}
	_ = writer.Wait()
	if len(acknowledged) < 200 {
		t.Fatalf("the writer acknowledged only %d changes", len(acknowledged))
	}
	store := openSessionFile(t, path)
	for _, line := range acknowledged {
		var id, title string
		if _, err := fmt.Sscan(line, &id, &title); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		record, ok := store.Get(id)
		if !ok || (title != "-" && (record.Title == nil || *record.Title < title)) {
			t.Fatalf("acknowledged %q, kept %+v (%v)", line, record, ok)
		}
	}
}

// writeSessionsUntilKilled records sessions and retitles each (title "t" and a number that only
// grows), printing "id -" and "id title" as each change is acknowledged.
func writeSessionsUntilKilled(path string) {
	store, err := acp.OpenSessionFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for index := 0; index < 1_000_000; index++ {
		id := fmt.Sprintf("s%06d", index)
		if store.Create(id, "/w", wire.Opt[string]{}).SessionID == "" {
			fmt.Fprintln(os.Stderr, store.Err())
			os.Exit(2)
		}
		fmt.Printf("%s -\n", id)
		for step := range 2 {
			title := fmt.Sprintf("t%06d-%d", index, step)
			if _, err := store.Change(id, acp.SessionChange{Title: wire.Some(title)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Printf("%s %s\n", id, title)
		}
	}
	os.Exit(0)
}

func TestSessionFileOfAnUnknownFormatIsRefusedUntouched(t *testing.T) {
	folder := t.TempDir()
	for _, text := range []string{
		"",
		"not json",
		`{"format":"something else"}`,
		`{"sessions":[]}`,
		`[1,2]`,
		`{"format":"acp-codegen-session-store/json-1","next":2,"sessions":[[1,{"cwd":"/w"}]]}`,
		`{"format":"acp-codegen-session-store/json-1","next":3,"sessions":[[2,{"sessionId":"a","cwd":"/w"}]]}`,
		`{"format":"acp-codegen-session-store/json-1","next":3,"sessions":[[1,{"sessionId":"a","cwd":"/w"}],[2,{"sessionId":"a","cwd":"/w"}]]}`,
		`{"format":"acp-codegen-session-store/json-1","next":1,"sessions":[[1,{"sessionId":"a","cwd":"/w","title":3}]]}`,
	} {
		path := filepath.Join(folder, "other.json")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		store, err := acp.OpenSessionFile(path)
		if store != nil || err == nil || strings.Contains(err.Error(), "\n") ||
			!strings.HasPrefix(err.Error(), "acp: "+path+" is not a session store of format acp-codegen-session-store/json-1 (") {
			t.Fatalf("%q: %v", text, err)
		}
		if kept, _ := os.ReadFile(path); string(kept) != text {
			t.Fatalf("%q became %q", text, kept)
		}
		if names := entries(t, folder); !reflect.DeepEqual(names, []string{"other.json"}) {
			t.Fatalf("%v", names)
		}
	}
}

func TestSessionFileMissingStartsEmptyAndIsWrittenOnTheFirstChange(t *testing.T) {
	folder := t.TempDir()
	path := filepath.Join(folder, "sessions.json")
	store := openSessionFile(t, path)
	if page, _ := store.ListSessions("", ""); len(page.Sessions) != 0 || len(entries(t, folder)) != 0 {
		t.Fatalf("%+v %v", page, entries(t, folder))
	}
	store.NewSession("/w", wire.Some("hello"))
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", info, err)
	}
	if _, err := acp.OpenSessionFile(filepath.Join(folder, "nowhere", "sessions.json")); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Fatalf("a store in a folder that does not exist: %v", err)
	}
}

func TestSessionFileLeavesNoTemporaryFileBehind(t *testing.T) {
	folder := t.TempDir()
	path := filepath.Join(folder, "sessions.json")
	store := openSessionFile(t, path)
	for index := range 20 {
		id := fmt.Sprintf("s%d", index)
		store.Create(id, "/w", wire.Opt[string]{})
		if _, err := store.Change(id, acp.SessionChange{Title: wire.Some("x")}); err != nil {
			t.Fatal(err)
		}
	}
	if names := entries(t, folder); !reflect.DeepEqual(names, []string{"sessions.json"}) {
		t.Fatalf("%v", names)
	}
}

func TestSessionFileKeepsEveryChangeMadeConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.json")
	store := openSessionFile(t, path)
	var group sync.WaitGroup
	for index := range 16 {
		group.Add(1)
		go func() {
			defer group.Done()
			id := fmt.Sprintf("s%02d", index)
			store.Create(id, "/w", wire.Opt[string]{})
			if _, err := store.Change(id, acp.SessionChange{Title: wire.Some(id)}); err != nil {
				t.Error(err)
			}
		}()
	}
	group.Wait()
	again := openSessionFile(t, path)
	for index := range 16 {
		id := fmt.Sprintf("s%02d", index)
		if record := mustGet(t, again, id); record.Title == nil || *record.Title != id {
			t.Fatalf("%+v", record)
		}
	}
}

func TestSessionFileAWriteThatFailsLeavesMemoryAsItWasAndRefusesLaterChanges(t *testing.T) {
	folder := t.TempDir()
	path := filepath.Join(folder, "sessions.json")
	store := openSessionFile(t, path)
	store.Create("kept", "/w", wire.Some("before"))
	// The rename cannot replace a folder that holds a file (even as root).
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := store.Change("kept", acp.SessionChange{Title: wire.Some("after")})
	if err == nil || !strings.Contains(err.Error(), path) || store.Err() != err {
		t.Fatalf("%v / %v", err, store.Err())
	}
	if record := mustGet(t, store, "kept"); *record.Title != "before" {
		t.Fatalf("memory changed: %+v", record)
	}
	if record := store.Create("new", "/w", wire.Opt[string]{}); record.SessionID != "" {
		t.Fatalf("a failed store recorded %+v", record)
	}
	if _, ok := store.ApplyUpdate("kept", json.RawMessage(`{"title":"x"}`)); ok {
		t.Fatal("a failed store applied an update")
	}
	if _, found := store.Get("new"); found {
		t.Fatal("a session that was not written is listed")
	}
	if record := store.Create("kept", "/w", wire.Opt[string]{}); record.SessionID != "kept" {
		t.Fatalf("the session on disk: %+v", record)
	}
	if names := entries(t, folder); !reflect.DeepEqual(names, []string{"sessions.json"}) {
		t.Fatalf("%v", names)
	}
}

func TestSessionFileReadsTheTypeScriptRuntimesFileAndWritesItTheSame(t *testing.T) {
	folder := t.TempDir()
	path := filepath.Join(folder, "sessions.json")
	if err := os.WriteFile(path, []byte(typeScriptStoreFile), 0o600); err != nil {
		t.Fatal(err)
	}
	store := openSessionFile(t, path)
	if record := mustGet(t, store, "s-1"); *record.Title != `First <"é"> & co` || string(record.Meta["a"]) != `{"b":1}` {
		t.Fatalf("%+v", record)
	}
	if page, _ := store.ListSessions("/work", ""); len(page.Sessions) != 2 || page.Sessions[1].SessionID != "s-3" || page.Sessions[1].Title != nil {
		t.Fatalf("%+v", page)
	}
	// Written again by Go (a change that changes nothing writes nothing: remove and restore a key).
	if _, err := store.Change("s-2", acp.SessionChange{Title: wire.Some("x"), UpdatedAt: wire.Some("2026-11-21T12:00:00Z")}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Change("s-2", acp.SessionChange{Title: wire.Null[string](), UpdatedAt: wire.Some("2026-11-21T12:00:00Z")}); err != nil {
		t.Fatal(err)
	}
	if written, _ := os.ReadFile(path); string(written) != typeScriptStoreFile {
		t.Fatalf("Go wrote\n%s", written)
	}
}
