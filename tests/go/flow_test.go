package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

// held answers "hold" once release is closed, and says when it starts.
func held(started chan<- string, release <-chan struct{}) acp.RequestFunc {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		started <- string(params)
		select {
		case <-release:
			return params, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func TestReadingPausesWhileTooManyRequestsAreInFlightAndResumesAtHalf(t *testing.T) {
	started, release := make(chan string, 8), make(chan struct{})
	handlers := acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"hold": held(started, release)}}
	conn, peer := connect(t, handlers, acp.MaxInFlight(2))
	for id := 1; id <= 3; id++ {
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"hold","params":[%d]}`, id, id))
	}
	<-started
	<-started
	select {
	case third := <-started:
		t.Fatalf("request %s was read while 2 were in flight (the limit)", third)
	case <-time.After(150 * time.Millisecond):
	}
	if conn.InFlight() != 2 {
		t.Fatalf("%d in flight, want 2", conn.InFlight())
	}
	close(release)
	ids := map[string]bool{}
	for range 3 {
		answer, _ := peer.next()
		ids[string(answer["id"])] = true
	}
	if !ids["1"] || !ids["2"] || !ids["3"] {
		t.Fatalf("answered %v, want 1, 2 and 3", ids)
	}
}

func TestAPausedConnectionStillCloses(t *testing.T) {
	started := make(chan string, 8)
	handlers := acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"hold": held(started, nil)}}
	conn, peer := connect(t, handlers, acp.MaxInFlight(1))
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"hold"}`)
	<-started
	closed := make(chan struct{})
	go func() {
		_ = conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(patience):
		t.Fatal("Close did not return while reading was paused")
	}
}

func TestARequestIDAlreadyInFlightIsRefused32600AndTheFirstGoesOn(t *testing.T) {
	started, release := make(chan string, 8), make(chan struct{})
	handlers := acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"hold": held(started, release)}}
	_, peer := connect(t, handlers)
	peer.send(`{"jsonrpc":"2.0","id":7,"method":"hold","params":["first"]}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","id":7,"method":"hold","params":["second"]}`)
	refused, _ := peer.next()
	if code, _ := errorCode(t, refused); code != acp.InvalidRequest || string(refused["id"]) != "7" {
		t.Fatalf("the second request 7 was answered %v", refused)
	}
	close(release)
	answer, _ := peer.next()
	if string(answer["result"]) != `["first"]` {
		t.Fatalf("the first request 7 was answered %v", answer)
	}
}

func TestAGracefulCallerSendsTheCancelAndWaitsForThePeers32800(t *testing.T) {
	conn, peer := connect(t, acp.MethodHandlers{})
	ctx, cancel := context.WithCancel(acp.Graceful(context.Background()))
	failed := make(chan error, 1)
	go func() {
		_, err := conn.Request(ctx, "session/prompt", map[string]string{"sessionId": "s"})
		failed <- err
	}()
	request, _ := peer.next()
	cancel()
	notice, frame := peer.next()
	if string(notice["method"]) != `"$/cancel_request"` {
		t.Fatalf("sent %s", frame)
	}
	select {
	case err := <-failed:
		t.Fatalf("the caller stopped waiting before the answer: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"error":{"code":-32800,"message":"Request cancelled"}}`)
	var failure *acp.Error
	if err := <-failed; !errors.As(err, &failure) || failure.Code != acp.RequestCancelled {
		t.Fatalf("the caller got %v, want the peer's -32800", err)
	}
}
