package tests

// The LSP base protocol's Content-Length framing (runtime/framing.go), chosen per transport with
// acp.ContentLength; NDJSON stays the default. The cases of tests/typescript/content_length.test.ts.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	acp "acp-protocol-sdk"
)

func framed(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// chunked reads its data in pieces of size bytes: a frame split across reads.
type chunked struct {
	data []byte
	size int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.data[:min(c.size, len(c.data))])
	c.data = c.data[n:]
	return n, nil
}

// cutFrames reads every frame of r over a Content-Length transport: the frames, the oversized
// ones, the malformed reasons reported, and the error that ended reading.
func cutFrames(r io.Reader, limit int) (frames []string, dropped []*acp.FrameTooLong, malformed []string, end error) {
	report := func(reason string) { malformed = append(malformed, reason) }
	transport := acp.NewStreamTransport(r, io.Discard, acp.ContentLength, acp.ReportMalformed(report))
	if limit > 0 {
		transport.SetFrameLimit(limit)
	}
	for {
		frame, err := transport.ReadFrame()
		var tooLong *acp.FrameTooLong
		switch {
		case errors.As(err, &tooLong):
			dropped = append(dropped, tooLong)
		case err != nil:
			return frames, dropped, malformed, err
		default:
			frames = append(frames, string(frame))
		}
	}
}

func TestContentLengthWritesTheBodysLengthInBytesAndNDJSONIsUnchanged(t *testing.T) {
	// LSP: "Content-Length: The length of the content part in bytes. This header is required."
	for framing, want := range map[acp.Framing]string{
		acp.ContentLength: "Content-Length: 10\r\n\r\n{\"a\":\"é\"}",
		acp.NDJSON:        "{\"a\":\"é\"}\n",
	} {
		var out bytes.Buffer
		if err := acp.NewStreamTransport(strings.NewReader(""), &out, framing).WriteFrame([]byte(`{"a":"é"}`)); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("%s wrote %q, expected %q", framing, out.String(), want)
		}
	}
	var out bytes.Buffer
	_ = acp.NewStreamTransport(strings.NewReader(""), &out).WriteFrame([]byte(`{}`))
	if out.String() != "{}\n" || acp.NDJSON.String() != "ndjson" || acp.ContentLength.String() != "content-length" {
		t.Fatalf("the default wrote %q", out.String())
	}
}

func TestContentLengthRoundTripsOverAPipe(t *testing.T) {
	a, b := acp.Pipe(acp.ContentLength)
	defer a.Close()
	defer b.Close()
	sent := []string{`{"id":1}`, `{"id":"é","text":"line\nbreak"}`, "{\n  \"pretty\": true\n}"}
	go func() {
		for _, frame := range sent {
			_ = a.WriteFrame([]byte(frame))
		}
	}()
	for _, want := range sent {
		frame, err := b.ReadFrame()
		if err != nil || string(frame) != want {
			t.Fatalf("read %q (%v), expected %q", frame, err, want)
		}
	}
}

func TestAMessageSplitAnywhereAcrossReadsIsReadWhole(t *testing.T) {
	stream := framed(`{"id":1}`) + framed(`{"id":"é"}`) + framed("{}")
	for size := 1; size <= len(stream); size++ {
		frames, _, malformed, end := cutFrames(&chunked{data: []byte(stream), size: size}, 0)
		if fmt.Sprint(frames) != fmt.Sprint([]string{`{"id":1}`, `{"id":"é"}`, "{}"}) || len(malformed) > 0 || end != io.EOF {
			t.Fatalf("chunks of %d bytes: %q %q %v", size, frames, malformed, end)
		}
	}
}

func TestTwoMessagesInOneReadAreBothRead(t *testing.T) {
	stream := []byte(framed(`{"id":1}`) + framed(`{"id":2}`))
	frames, _, _, _ := cutFrames(&chunked{data: stream, size: len(stream)}, 0)
	if fmt.Sprint(frames) != `[{"id":1} {"id":2}]` {
		t.Fatalf("%q", frames)
	}
}

func TestHeaderNamesAreCaseInsensitiveAndContentTypeIsIgnored(t *testing.T) {
	// LSP: "Content-Type … Defaults to application/vscode-jsonrpc; charset=utf-8".
	body := "{\n  \"id\": 2\n}"
	stream := fmt.Sprintf("content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(body), body)
	frames, _, _, _ := cutFrames(strings.NewReader(stream), 0)
	if len(frames) != 1 || frames[0] != body {
		t.Fatalf("%q", frames)
	}
}

func TestAHeaderWithoutAUsableContentLengthIsDroppedWithOneLineAndTheNextMessageRead(t *testing.T) {
	frames, _, malformed, _ := cutFrames(strings.NewReader("Content-Type: x\r\n\r\n"+"Content-Length: abc\r\n\r\n"+"Content-Length: -1\r\n\r\n"+framed(`{"ok":1}`)), 0)
	reason := "a message header without a usable Content-Length was dropped"
	if fmt.Sprint(frames) != `[{"ok":1}]` || fmt.Sprint(malformed) != fmt.Sprint([]string{reason, reason, reason}) {
		t.Fatalf("%q %q", frames, malformed)
	}
}

func TestAHeaderPartThatNeverEndsIsNotHeld(t *testing.T) {
	frames, _, malformed, _ := cutFrames(strings.NewReader(strings.Repeat("X", 100_000)+"\r\n\r\n"+framed(`{"ok":2}`)), 0)
	// Its last bytes are kept (the end may straddle reads), then read as a header part without a length.
	want := []string{"a header part of over 8192 bytes without its end was dropped", "a message header without a usable Content-Length was dropped"}
	if fmt.Sprint(frames) != `[{"ok":2}]` || fmt.Sprint(malformed) != fmt.Sprint(want) {
		t.Fatalf("%q %q", frames, malformed)
	}
}

// repeated is an endless reader of one byte.
type repeated byte

func (r repeated) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestABodyOverTheLimitIsSkippedAsItStreamsAndTheNextMessageRead(t *testing.T) {
	const size = 64 << 20 // over DefaultFrameLimit
	head := `{"jsonrpc":"2.0","id":7,"method":"x","params":"`
	stream := io.MultiReader(
		strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", size, head)),
		io.LimitReader(repeated('y'), size-int64(len(head))),
		strings.NewReader(framed(`{"ok":3}`)),
	)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	frames, dropped, malformed, _ := cutFrames(stream, 0)
	runtime.ReadMemStats(&after)
	if fmt.Sprint(frames) != `[{"ok":3}]` || len(dropped) != 1 || len(malformed) != 0 {
		t.Fatalf("%q %v %q", frames, dropped, malformed)
	}
	if dropped[0].Size != size || dropped[0].Limit != acp.DefaultFrameLimit || !strings.HasPrefix(string(dropped[0].Head), head) || len(dropped[0].Head) > 4096 {
		t.Fatalf("dropped %d of limit %d, head %d bytes", dropped[0].Size, dropped[0].Limit, len(dropped[0].Head))
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 4<<20 {
		t.Fatalf("%d bytes allocated to skip a body of %d", allocated, size)
	} else {
		t.Logf("%d bytes allocated to skip a body of %d", allocated, size)
	}
}

func TestABodyOverTheLimitIsAnswered32600AsAnOversizedLineIs(t *testing.T) {
	ours, theirs := acp.Pipe(acp.ContentLength)
	ours.SetFrameLimit(1024)
	conn := acp.NewConnection(ours, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"echo": echo}})
	defer conn.Close()
	defer theirs.Close()
	big := `{"jsonrpc":"2.0","id":"big","method":"echo","params":"` + strings.Repeat("x", 5000) + `"}`
	go func() {
		_ = theirs.WriteFrame([]byte(big))
		_ = theirs.WriteFrame([]byte(`{"jsonrpc":"2.0","id":"small","method":"echo","params":[1]}`))
	}()
	want := []string{
		fmt.Sprintf(`{"jsonrpc":"2.0","id":"big","error":{"code":-32600,"message":"Frame over the size limit","data":{"limit":1024,"size":%d}}}`, len(big)),
		`{"jsonrpc":"2.0","id":"small","result":[1]}`,
	}
	for _, expected := range want {
		if frame, err := theirs.ReadFrame(); err != nil || string(frame) != expected {
			t.Fatalf("read %s (%v), expected %s", frame, err, expected)
		}
	}
}

// answerTo is a connection's first answer to frame, over a pipe of the framing given.
func answerTo(t *testing.T, framing acp.Framing, frame []byte) string {
	t.Helper()
	ours, theirs := acp.Pipe(framing)
	conn := acp.NewConnection(ours, acp.MethodHandlers{})
	defer conn.Close()
	defer theirs.Close()
	go func() { _ = theirs.WriteFrame(frame) }()
	answer, err := theirs.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	return string(answer)
}

func TestABodyThatIsNotUTF8IsAnswered32700AsSuchALineIs(t *testing.T) {
	// RFC 8259 §8.1: JSON text exchanged between systems "MUST be encoded using UTF-8".
	bad := []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}")
	overLines, overBodies := answerTo(t, acp.NDJSON, bad), answerTo(t, acp.ContentLength, bad)
	var answer struct {
		ID    json.RawMessage `json:"id"`
		Error struct{ Code int }
	}
	if overBodies != overLines || json.Unmarshal([]byte(overBodies), &answer) != nil || string(answer.ID) != "null" || answer.Error.Code != acp.ParseError {
		t.Fatalf("over Content-Length %s, over NDJSON %s", overBodies, overLines)
	}
}

func TestAStreamThatEndsInsideAMessageIsReported(t *testing.T) {
	for stream, want := range map[string]string{
		"Content-Length: 10\r\n\r\n{": "[the stream ended inside a message]",
		"Content-Length: 10\r\n":      "[the stream ended inside a message]",
		framed("{}") + "\r\n":         "[]", // whitespace between messages is not a message
		"":                            "[]",
	} {
		_, _, malformed, end := cutFrames(strings.NewReader(stream), 0)
		if fmt.Sprint(malformed) != want || end != io.EOF {
			t.Errorf("%q: %q, %v", stream, malformed, end)
		}
	}
}

func TestAConnectionOverContentLengthAnswersInContentLengthFrames(t *testing.T) {
	ours, theirs := acp.Pipe(acp.ContentLength)
	conn := acp.NewConnection(ours, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"echo": echo}})
	defer conn.Close()
	defer theirs.Close()
	go func() {
		_ = theirs.WriteFrame([]byte(`{"jsonrpc":"2.0","id":9007199254740993,"method":"echo","params":{"x":"é"}}`))
	}()
	frame, err := theirs.ReadFrame()
	if err != nil || string(frame) != `{"jsonrpc":"2.0","id":9007199254740993,"result":{"x":"é"}}` {
		t.Fatalf("%s %v", frame, err)
	}
}

func TestASpawnedProgramIsSpokenToInContentLengthFrames(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	child, err := acp.SpawnCommand(context.Background(), exec.Command(cat), acp.ContentLength)
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	sent := `{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"line":"é"}}`
	if err := child.WriteFrame([]byte(sent)); err != nil {
		t.Fatal(err)
	}
	// cat sends our message back as it came: header part and all.
	if frame, err := child.ReadFrame(); err != nil || string(frame) != sent {
		t.Fatalf("%s %v", frame, err)
	}
}
