// The PostgreSQL store's cost per batch of session updates: one round trip to the database (a
// pgx.Batch: the session's advisory lock and the append-and-trim statement, one implicit
// transaction), counted by a proxy in front of the server, as the Python store's is
// (tests/runtime/test_session_store_round_trips.py).
package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"acp-protocol-sdk/postgres"
)

// roundTrips is a TCP proxy to a PostgreSQL server that counts its clients' round trips: each
// time a client sends after the server last spoke (or first).
type roundTrips struct {
	count    atomic.Int64
	listener net.Listener
}

func proxy(t *testing.T, dsn string) (*roundTrips, string) {
	target, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &roundTrips{listener: listener}
	t.Cleanup(func() { listener.Close() })
	go func() {
		for {
			client, err := listener.Accept()
			if err != nil {
				return
			}
			go p.serve(client, target.Host)
		}
	}()
	through := *target
	through.Host = listener.Addr().String()
	return p, through.String()
}

func (p *roundTrips) serve(client net.Conn, address string) {
	defer client.Close()
	server, err := net.Dial("tcp", address)
	if err != nil {
		return
	}
	defer server.Close()
	var mu sync.Mutex
	serverSpoke := true
	pump := func(from, to net.Conn, fromClient bool) {
		buffer := make([]byte, 65536)
		for {
			n, err := from.Read(buffer)
			if n > 0 {
				mu.Lock()
				if fromClient && serverSpoke {
					p.count.Add(1)
				}
				serverSpoke = !fromClient
				mu.Unlock()
				if _, err := to.Write(buffer[:n]); err != nil {
					return
				}
			}
			if err != nil { // io.EOF too: the side closed
				return
			}
		}
	}
	done := make(chan struct{})
	go func() { pump(server, client, false); client.Close(); close(done) }()
	pump(client, server, true)
	server.Close()
	<-done
}

func TestABatchOfUpdatesIsOneRoundTripToTheDatabase(t *testing.T) {
	dsn := os.Getenv("ACP_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("no PostgreSQL server (ACP_TEST_POSTGRES unset)")
	}
	p, through := proxy(t, dsn)
	var random [8]byte
	_, _ = rand.Read(random[:])
	ctx := context.Background()
	s, err := postgres.Open(ctx, through+"?pool_max_conns=1", postgres.Options{Schema: "trips_" + hex.EncodeToString(random[:]), HistoryLimit: 15})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	batch := func(name string) []json.RawMessage {
		updates := []json.RawMessage{}
		for n := range 10 {
			updates = append(updates, json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","n":"%s%d"}`, name, n)))
		}
		return updates
	}
	// The connection's first batch prepares its two statements (one more round trip, once).
	if err := s.AppendUpdates(ctx, "s", batch("warm")); err != nil {
		t.Fatal(err)
	}
	trips := []int64{}
	for number := range 3 {
		before := p.count.Load()
		if err := s.AppendUpdates(ctx, "s", batch(fmt.Sprintf("b%d-", number))); err != nil {
			t.Fatal(err)
		}
		trips = append(trips, p.count.Load()-before)
	}
	if fmt.Sprint(trips) != "[1 1 1]" {
		t.Fatalf("round trips per batch: %v, want [1 1 1]", trips)
	}
	replay, err := s.ReadUpdates(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var first, last struct{ N string }
	_ = json.Unmarshal(replay.Updates[0], &first)
	_ = json.Unmarshal(replay.Updates[len(replay.Updates)-1], &last)
	if len(replay.Updates) != 15 || replay.Dropped != 25 || first.N != "b1-5" || last.N != "b2-9" {
		t.Fatalf("kept %d from %s to %s, dropped %d; want 15 from b1-5 to b2-9, dropped 25", len(replay.Updates), first.N, last.N, replay.Dropped)
	}
}
