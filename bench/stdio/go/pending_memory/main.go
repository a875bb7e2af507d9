// Command pending_memory is memory per pending request for the Go pairs (`pending_memory
// ours|coder N`): a client-side connection of the named SDK, over in-memory pipes to a peer that
// reads and discards everything and never answers, sends N session/prompt requests, each from
// its own goroutine, and prints the growth per request as one JSON line.
//
// Memory is HeapAlloc + StackInuse after runtime.GC(): the live heap objects and the goroutine
// stacks (each pending call's goroutine, in either SDK), read the same way for both.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"

	coder "github.com/coder/acp-go-sdk"
)

const text = "hello"

// sink is the peer: it reads every frame the caller writes, counts the session/prompt ones and
// never answers.
type sink struct{ prompts atomic.Int64 }

func (s *sink) drain(r io.Reader) {
	reader := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := reader.ReadSlice('\n')
		if bytes.Contains(line, []byte(`"session/prompt"`)) {
			s.prompts.Add(1)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// waitFor returns once the peer has read n prompts in all.
func (s *sink) waitFor(n int64) {
	for s.prompts.Load() < n {
		time.Sleep(time.Millisecond)
	}
}

type coderClient struct{}

func (coderClient) SessionUpdate(context.Context, coder.SessionNotification) error { return nil }

func (coderClient) ReadTextFile(context.Context, coder.ReadTextFileRequest) (coder.ReadTextFileResponse, error) {
	return coder.ReadTextFileResponse{}, coder.NewMethodNotFound("fs/read_text_file")
}

func (coderClient) WriteTextFile(context.Context, coder.WriteTextFileRequest) (coder.WriteTextFileResponse, error) {
	return coder.WriteTextFileResponse{}, coder.NewMethodNotFound("fs/write_text_file")
}

func (coderClient) RequestPermission(context.Context, coder.RequestPermissionRequest) (coder.RequestPermissionResponse, error) {
	return coder.RequestPermissionResponse{}, coder.NewMethodNotFound("session/request_permission")
}

func (coderClient) CreateTerminal(context.Context, coder.CreateTerminalRequest) (coder.CreateTerminalResponse, error) {
	return coder.CreateTerminalResponse{}, coder.NewMethodNotFound("terminal/create")
}

func (coderClient) KillTerminal(context.Context, coder.KillTerminalRequest) (coder.KillTerminalResponse, error) {
	return coder.KillTerminalResponse{}, coder.NewMethodNotFound("terminal/kill")
}

func (coderClient) TerminalOutput(context.Context, coder.TerminalOutputRequest) (coder.TerminalOutputResponse, error) {
	return coder.TerminalOutputResponse{}, coder.NewMethodNotFound("terminal/output")
}

func (coderClient) ReleaseTerminal(context.Context, coder.ReleaseTerminalRequest) (coder.ReleaseTerminalResponse, error) {
	return coder.ReleaseTerminalResponse{}, coder.NewMethodNotFound("terminal/release")
}

func (coderClient) WaitForTerminalExit(context.Context, coder.WaitForTerminalExitRequest) (coder.WaitForTerminalExitResponse, error) {
	return coder.WaitForTerminalExitResponse{}, coder.NewMethodNotFound("terminal/wait_for_exit")
}

// connect makes the named SDK's client-side connection over the pipes: prompt sends one
// session/prompt and waits for its answer, closing ends the connection.
func connect(impl string, r io.ReadCloser, w io.WriteCloser) (prompt func(context.Context) error, closing func()) {
	switch impl {
	case "ours":
		conn, agent := v1.ConnectClient(acp.NewStreamTransport(r, w), v1.UnimplementedClient{})
		prompt = func(ctx context.Context) error {
			_, err := agent.SessionPrompt(ctx, v1.PromptRequest{SessionID: "s1", Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: text}}})
			return err
		}
		return prompt, func() { _ = conn.Close() }
	case "coder":
		conn := coder.NewClientSideConnection(coderClient{}, w, r)
		prompt = func(ctx context.Context) error {
			_, err := conn.Prompt(ctx, coder.PromptRequest{SessionId: "s1", Prompt: []coder.ContentBlock{coder.TextBlock(text)}})
			return err
		}
		return prompt, func() { _ = w.Close(); _ = r.Close() }
	}
	return nil, nil
}

func used() int64 {
	var stats runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&stats)
	return int64(stats.HeapAlloc + stats.StackInuse)
}

func run(impl string, n int) (map[string]any, error) {
	callerRead, peerWrite := io.Pipe()
	peerRead, callerWrite := io.Pipe()
	peer := &sink{}
	go peer.drain(peerRead)
	prompt, closing := connect(impl, callerRead, callerWrite)
	if prompt == nil {
		return nil, fmt.Errorf("unknown implementation %q (ours or coder)", impl)
	}
	// Warm-up, outside the measured span: one request sent and cancelled (encoders built, the
	// cancel path taken), as the Python workloads build one message first.
	warm, cancelWarm := context.WithCancel(context.Background())
	warmed := make(chan error, 1)
	go func() { warmed <- prompt(warm) }()
	peer.waitFor(1)
	cancelWarm()
	<-warmed
	time.Sleep(20 * time.Millisecond)

	before := used()
	ctx, cancel := context.WithCancel(context.Background())
	var calls sync.WaitGroup
	for range n {
		calls.Add(1)
		go func() {
			defer calls.Done()
			_ = prompt(ctx)
		}()
	}
	peer.waitFor(int64(n) + 1) // every request written: pending, not merely started
	time.Sleep(20 * time.Millisecond)
	after := used()

	cancel()
	calls.Wait()
	closing()
	_ = peerWrite.Close()
	label := impl + "-go"
	return map[string]any{"impl": label, "pending": n, "bytes_per_pending": float64(after-before) / float64(n)}, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pending_memory ours|coder N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "pending_memory: N must be a positive count")
		os.Exit(2)
	}
	result, err := run(os.Args[1], n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pending_memory:", err)
		os.Exit(1)
	}
	line, _ := json.Marshal(result)
	fmt.Println(string(line))
}
