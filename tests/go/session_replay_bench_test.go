package tests

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

// countingBackend keeps nothing and counts the updates it was given: the runtime's own cost of
// recording, without a store's.
type countingBackend struct {
	acp.SessionBackend
	kept atomic.Int64
}

func (c *countingBackend) AppendUpdates(_ context.Context, _ string, updates []json.RawMessage) error {
	c.kept.Add(int64(len(updates)))
	return nil
}

// sink is a transport that drops what is written and reads nothing until closed.
type sink struct{ closed chan struct{} }

func (s sink) ReadFrame() ([]byte, error) { <-s.closed; return nil, io.EOF }
func (sink) WriteFrame([]byte) error      { return nil }
func (s sink) Close() error               { close(s.closed); return nil }

// BenchmarkASessionUpdate is the CPU a session/update costs an agent: encoded and written on the
// connection (a transport that drops it), with no store and with one (handed to the store's
// AppendUpdates, a store that keeps nothing: the runtime's own cost of recording). Run with
// -cpu 1 for the CPU of both goroutines per update (the sender's and the recorder's):
// go test -run '^$' -bench ASessionUpdate -cpu 1 . (in tests/go).
func BenchmarkASessionUpdate(b *testing.B) {
	var note v1.SessionNotification
	text := strings.Repeat("a streamed chunk of the agent's answer. ", 5)[:180]
	encoded, _ := json.Marshal(map[string]any{"sessionId": "s1", "update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}})
	if err := json.Unmarshal(encoded, &note); err != nil {
		b.Fatal(err)
	}
	for _, recorded := range []bool{false, true} {
		name := map[bool]string{false: "no store", true: "recorded"}[recorded]
		b.Run(name, func(b *testing.B) {
			backend := &countingBackend{SessionBackend: acp.BackendOf(&acp.SessionStore{})}
			agent := chattyAgent{}
			if recorded {
				agent.SessionBackend = backend
			}
			conn := acp.NewConnection(sink{make(chan struct{})}, v1.AgentHandler(agent))
			defer conn.Close()
			peer := v1.ClientPeer{Conn: conn}
			b.ReportAllocs()
			b.ResetTimer()
			before := cpuTime()
			for range b.N {
				if err := peer.SessionUpdate(note); err != nil {
					b.Fatal(err)
				}
			}
			for deadline := time.Now().Add(10 * time.Second); recorded && backend.kept.Load() < int64(b.N); time.Sleep(50 * time.Microsecond) {
				if time.Now().After(deadline) {
					b.Fatalf("recorded %d of %d updates", backend.kept.Load(), b.N)
				}
			}
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process used so far (user and system, every thread: the GC's
// too), in nanoseconds: unlike ns/op, not raised by time spent waiting for a CPU.
func cpuTime() int64 {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return usage.Utime.Nano() + usage.Stime.Nano()
}
