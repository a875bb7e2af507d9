package tests

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

func TestAnAnswerReachesItsCallerAfterTheNotificationsSentBeforeIt(t *testing.T) {
	var mu sync.Mutex
	handled := 0
	conn, peer := connect(t, acp.MethodHandlers{Notifications: map[string]acp.NotificationFunc{
		"session/update": func(context.Context, json.RawMessage) {
			time.Sleep(20 * time.Millisecond) // a slow handler: the answer must not overtake it
			mu.Lock()
			handled++
			mu.Unlock()
		},
	}})
	answered := make(chan error, 1)
	go func() {
		_, err := conn.Request(context.Background(), "session/prompt", map[string]string{})
		answered <- err
	}()
	request, _ := peer.next()
	for range 3 {
		peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{}}`)
	}
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"stopReason":"end_turn"}}`)
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if handled != 3 {
		t.Fatalf("the caller had its answer after %d of the 3 notifications sent before it", handled)
	}
}

func TestANotificationHandlerCanWaitOnARequestOfItsOwn(t *testing.T) {
	results := make(chan string, 1)
	_, peer := connect(t, acp.MethodHandlers{Notifications: map[string]acp.NotificationFunc{
		"session/update": func(ctx context.Context, _ json.RawMessage) {
			result, err := acp.ConnectionOf(ctx).Request(ctx, "fs/read_text_file", map[string]string{})
			if err != nil {
				results <- err.Error()
				return
			}
			results <- string(result)
		},
	}})
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{}}`)
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{}}`) // queued behind the first
	request, _ := peer.next()
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"content":"x"}}`)
	select {
	case got := <-results:
		if got != `{"content":"x"}` {
			t.Fatalf("the handler's request got %s", got)
		}
	case <-time.After(patience):
		t.Fatal("the answer waited behind the handler waiting for it")
	}
}
