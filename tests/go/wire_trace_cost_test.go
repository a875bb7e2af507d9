package tests

// ACP_TRACE's CPU cost per frame on the Go runtime: notifications written by a connection to a
// sink that discards them, with and without ACP_TRACE, in bursts of 64 (then a pause that lets
// the recording's writer run) and alone (a pause after each); the process's CPU (getrusage, every
// thread) per frame. A benchmark, run only when asked:
//   cd tests/go && go test -run '^$' -bench ACPTraceCost -benchtime 25600x .

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

func cpuMicros() float64 {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e3
}

func benchmarkACPTraceCost(b *testing.B, trace bool, burst int) {
	if trace {
		b.Setenv("ACP_TRACE", filepath.Join(b.TempDir(), "t-{n}.jsonl"))
	} else {
		b.Setenv("ACP_TRACE", "")
	}
	reader, _ := io.Pipe()
	conn := acp.NewConnection(acp.NewStreamTransport(reader, io.Discard), acp.MethodHandlers{})
	params := map[string]any{"sessionId": "s1", "update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "hello there"}}}
	b.ResetTimer()
	before := cpuMicros()
	for i := 0; i < b.N; i++ {
		if err := conn.Notify("session/update", params); err != nil {
			b.Fatal(err)
		}
		if (i+1)%burst == 0 {
			time.Sleep(20 * time.Microsecond)
		}
	}
	_ = reader.Close()
	_ = conn.Close()
	b.ReportMetric((cpuMicros()-before)/float64(b.N), "µs-CPU/frame")
}

func BenchmarkACPTraceCostBurst64Without(b *testing.B) { benchmarkACPTraceCost(b, false, 64) }
func BenchmarkACPTraceCostBurst64With(b *testing.B)    { benchmarkACPTraceCost(b, true, 64) }
func BenchmarkACPTraceCostAloneWithout(b *testing.B)   { benchmarkACPTraceCost(b, false, 1) }
func BenchmarkACPTraceCostAloneWith(b *testing.B)      { benchmarkACPTraceCost(b, true, 1) }
