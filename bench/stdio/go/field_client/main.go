// Command field_client is the field bench client on our generated Go package (bench/field.py runs
// it): it spawns the agent after `--`, initializes, opens one session, runs WARM + TIMED prompt
// turns and prints one JSON line: per timed turn, the milliseconds from sending session/prompt to
// the first agent_message_chunk ("first") and to the prompt's answer ("end"), and the chunks seen.
// Usage: field_client WARM TIMED -- AGENT COMMAND...
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	"acp-protocol-sdk/wire"
)

type client struct {
	v1.UnimplementedClient
	mu     *sync.Mutex
	first  *time.Time
	chunks *int
}

func (c client) SessionUpdate(_ context.Context, params v1.SessionNotification) {
	if _, ok := params.Update.(v1.SessionUpdateAgentMessageChunk); !ok {
		return
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.chunks++
	if c.first.IsZero() {
		*c.first = now
	}
}

type samples struct {
	Client string    `json:"client"`
	First  []float64 `json:"first"`
	End    []float64 `json:"end"`
	Chunks []int     `json:"chunks"`
}

func run() error {
	dash := slices.Index(os.Args, "--")
	if dash < 3 || dash+1 >= len(os.Args) {
		return fmt.Errorf("usage: field_client WARM TIMED -- AGENT COMMAND...")
	}
	warm, err := strconv.Atoi(os.Args[1])
	if err != nil {
		return err
	}
	timed, err := strconv.Atoi(os.Args[2])
	if err != nil {
		return err
	}
	ctx := context.Background()
	child, err := acp.Spawn(ctx, os.Args[dash+1], os.Args[dash+2:]...)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var first time.Time
	var chunks int
	conn, agent := v1.ConnectClient(child, client{mu: &mu, first: &first, chunks: &chunks})
	defer conn.Close()
	init := v1.InitializeRequest{ProtocolVersion: v1.EditionVersion, ClientCapabilities: wire.Some(v1.ClientCapabilities{})}
	if _, err := agent.Initialize(ctx, init); err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	session, err := agent.SessionNew(ctx, v1.NewSessionRequest{Cwd: cwd, MCPServers: []v1.MCPServer{}})
	if err != nil {
		return err
	}
	out := samples{Client: "ours-go", First: []float64{}, End: []float64{}, Chunks: []int{}}
	for turn := 0; turn < warm+timed; turn++ {
		mu.Lock()
		first, chunks = time.Time{}, 0
		mu.Unlock()
		prompt := v1.PromptRequest{SessionID: session.SessionID, Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: "Say something."}}}
		started := time.Now()
		answer, err := agent.SessionPrompt(ctx, prompt)
		ended := time.Now()
		if err != nil {
			return err
		}
		mu.Lock()
		seen, count := first, chunks
		mu.Unlock()
		if answer.StopReason != v1.StopReasonEndTurn || seen.IsZero() {
			return fmt.Errorf("turn %d: %s, %d chunks", turn, answer.StopReason, count)
		}
		if turn >= warm {
			out.First = append(out.First, float64(seen.Sub(started).Nanoseconds())/1e6)
			out.End = append(out.End, float64(ended.Sub(started).Nanoseconds())/1e6)
			out.Chunks = append(out.Chunks, count)
		}
	}
	line, err := json.Marshal(out)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "field_client:", err)
		os.Exit(1)
	}
}
