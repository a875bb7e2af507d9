package tests

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	"acp-protocol-sdk/wire"
)

// served is a FileService over a fresh root holding notes.txt, and that root.
func served(t *testing.T) (*acp.FileService, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("one\ntwo\nthree\nfour"), 0o600); err != nil {
		t.Fatal(err)
	}
	return acp.NewFileService(root), root
}

// refusal is the JSON-RPC error err carries, with its data.details.
func refusal(t *testing.T, err error) (int, string) {
	t.Helper()
	var rpcError *acp.Error
	if !errors.As(err, &rpcError) {
		t.Fatalf("want an *acp.Error, got %v", err)
	}
	var data struct {
		Path    string   `json:"path"`
		Roots   []string `json:"roots"`
		Details string   `json:"details"`
	}
	if err := json.Unmarshal(rpcError.Data, &data); err != nil || data.Path == "" || data.Roots == nil {
		t.Fatalf("data names neither the path nor the roots: %s", rpcError.Data)
	}
	return rpcError.Code, data.Details
}

func none() wire.Opt[uint32] { return wire.Opt[uint32]{} }

func TestAFileUnderARootIsReadWholeOrFromLineForLimitLines(t *testing.T) {
	files, root := served(t)
	path := filepath.Join(root, "notes.txt")
	for _, c := range []struct {
		line, limit wire.Opt[uint32]
		want        string
	}{
		{none(), none(), "one\ntwo\nthree\nfour"},
		{wire.Some[uint32](2), wire.Some[uint32](2), "two\nthree\n"},
		{wire.Some[uint32](3), none(), "three\nfour"},
		{wire.Some[uint32](9), none(), ""},
		{none(), wire.Some[uint32](0), ""},
	} {
		got, err := files.ReadTextFile(path, c.line, c.limit)
		if err != nil || got != c.want {
			t.Fatalf("line %v limit %v: %q, %v", c.line, c.limit, got, err)
		}
	}
}

func TestAPathOutsideTheRootsIsRefusedWithAnErrorNamingTheRoots(t *testing.T) {
	// "A file outside the allowed roots is never served", whether it exists or not.
	files, root := served(t)
	outside := filepath.Join(filepath.Dir(root), "elsewhere.txt")
	for _, path := range []string{"/etc/passwd", outside, root + "/../" + filepath.Base(root) + "x/notes.txt"} {
		_, err := files.ReadTextFile(path, none(), none())
		if code, details := refusal(t, err); code != acp.InvalidParams || details != "the path is outside the allowed roots" {
			t.Fatalf("%s: %d %q", path, code, details)
		}
	}
	if !strings.Contains(err2text(files.WriteTextFile("/tmp/acp-go-outside.txt", "x")), root) {
		t.Fatal("a refused write does not name the root")
	}
	if _, err := os.Stat("/tmp/acp-go-outside.txt"); err == nil {
		t.Fatal("a write outside the roots happened")
	}
}

func err2text(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestASymlinkUnderARootThatLeadsOutsideIsRefused(t *testing.T) {
	files, root := served(t)
	link := filepath.Join(root, "escape")
	if err := os.Symlink("/etc/passwd", link); err != nil {
		t.Fatal(err)
	}
	_, err := files.ReadTextFile(link, none(), none())
	if code, details := refusal(t, err); code != acp.InvalidParams || details != "the path is outside the allowed roots" {
		t.Fatalf("%d %q", code, details)
	}
	if err := files.WriteTextFile(link, "pwned"); err == nil {
		t.Fatal("a write through a symlink leading outside was allowed")
	}
}

func TestARelativePathIsRefused(t *testing.T) {
	// ACP: "All file paths in the protocol MUST be absolute."
	files, _ := served(t)
	_, err := files.ReadTextFile("notes.txt", none(), none())
	if code, details := refusal(t, err); code != acp.InvalidParams || details != "the path is not absolute" {
		t.Fatalf("%d %q", code, details)
	}
}

func TestAMissingFileUnderARootIsResourceNotFound(t *testing.T) {
	files, root := served(t)
	_, err := files.ReadTextFile(filepath.Join(root, "absent.txt"), none(), none())
	if code, _ := refusal(t, err); code != acp.ResourceNotFound {
		t.Fatalf("%d, want -32002", code)
	}
	// The code's title in the schema first: agents tell "not found" by these words (gemini-cli).
	var refused *acp.Error
	if !errors.As(err, &refused) || !strings.HasPrefix(refused.Message, "Resource not found: no such file: ") {
		t.Fatalf("message %v", err)
	}
}

func TestAFifoADeviceOrAFolderIsRefusedWithoutBlocking(t *testing.T) {
	files, root := served(t)
	fifo := filepath.Join(root, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	files.Allow("/dev")
	for _, path := range []string{fifo, "/dev/zero", root} {
		_, err := files.ReadTextFile(path, none(), none())
		if code, details := refusal(t, err); code != acp.InvalidParams || details != "not a regular file" {
			t.Fatalf("%s: %d %q", path, code, details)
		}
	}
}

func TestAReplyOverMaxBytesIsRefusedNotBuilt(t *testing.T) {
	files, root := served(t)
	files.MaxBytes = 8
	path := filepath.Join(root, "notes.txt")
	_, err := files.ReadTextFile(path, none(), none())
	if code, details := refusal(t, err); code != acp.InvalidParams || !strings.Contains(details, "exceed 8 bytes") {
		t.Fatalf("%d %q", code, details)
	}
	if got, err := files.ReadTextFile(path, wire.Some[uint32](2), wire.Some[uint32](1)); err != nil || got != "two\n" {
		t.Fatalf("fewer lines: %q %v", got, err)
	}
}

func TestAWriteReplacesTheFileAtomicallyAndKeepsItsMode(t *testing.T) {
	files, root := served(t)
	path := filepath.Join(root, "notes.txt")
	if err := files.WriteTextFile(path, "new text"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(data) != "new text" || info.Mode().Perm() != 0o600 {
		t.Fatalf("%q %v", data, info.Mode())
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Fatalf("a temporary file was left behind: %v", entries)
	}
	if err := files.WriteTextFile(filepath.Join(root, "fresh.txt"), "made"); err != nil {
		t.Fatal(err)
	}
	_, err := files.ReadTextFile(filepath.Join(root, "no-folder", "x.txt"), none(), none())
	if code, _ := refusal(t, err); code != acp.ResourceNotFound {
		t.Fatalf("%d", code)
	}
	if code, _ := refusal(t, files.WriteTextFile(filepath.Join(root, "no-folder", "x.txt"), "x")); code != acp.ResourceNotFound {
		t.Fatalf("a write into a missing folder: %d", code)
	}
}

func TestUnimplementedClientWithFilesAnswersTheAgentsReadsOnlyUnderItsRoots(t *testing.T) {
	files, root := served(t)
	_, peer := connect(t, v1.ClientHandler(v1.UnimplementedClient{Files: files}))
	path, _ := json.Marshal(filepath.Join(root, "notes.txt"))
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":` + string(path) + `,"line":2,"limit":1}}`)
	if answer := nextMsg(peer); string(answer["result"]) != `{"content":"two\n"}` {
		t.Fatalf("%v", answer)
	}
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/etc/passwd"}}`)
	answer := nextMsg(peer)
	var failure acp.Error
	if err := json.Unmarshal(answer["error"], &failure); err != nil || failure.Code != acp.InvalidParams || !strings.Contains(failure.Message, root) {
		t.Fatalf("%v", answer)
	}
	_, bare := connect(t, v1.ClientHandler(v1.UnimplementedClient{}))
	bare.send(`{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/etc/passwd"}}`)
	if answer := nextMsg(bare); !strings.Contains(string(answer["error"]), "-32601") {
		t.Fatalf("without Files: %v", answer)
	}
}
