//go:build unix

package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

// gone says whether no process pid is left (or only its zombie).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(stat), ") Z ")
}

func spawnShell(t *testing.T, ctx context.Context, script string) *acp.ProcessTransport {
	t.Helper()
	child, err := acp.Spawn(ctx, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Close() })
	return child
}

// firstLine is the child's first frame, as a number (a pid it printed).
func firstPid(t *testing.T, child *acp.ProcessTransport) int {
	t.Helper()
	frame, err := child.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(frame))
	if err != nil {
		t.Fatalf("%q: %v", frame, err)
	}
	return pid
}

func TestASpawnedProgramIsAPeerOverItsStdinAndStdout(t *testing.T) {
	// cat sends our request back: the connection answers it, and cat brings the answer home.
	child, err := acp.Spawn(context.Background(), "cat")
	if err != nil {
		t.Fatal(err)
	}
	conn := acp.NewConnection(child, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"echo": echo}})
	defer conn.Close()
	result, err := conn.Request(context.Background(), "echo", map[string]string{"text": "back"})
	if err != nil || string(result) != `{"text":"back"}` {
		t.Fatalf("%s %v", result, err)
	}
}

func TestSpawnedProgramRunsInAProcessGroupOfItsOwn(t *testing.T) {
	child := spawnShell(t, context.Background(), `echo $$; exec cat`)
	pid := firstPid(t, child)
	group, err := syscall.Getpgid(pid)
	if err != nil || group != pid || group == syscall.Getpgrp() {
		t.Fatalf("the child %d is in group %d (%v); ours is %d", pid, group, err, syscall.Getpgrp())
	}
}

func TestClosingTheTransportEndsTheChildsWholeGroupEvenAGrandchildThatOutlivesIt(t *testing.T) {
	// The child exits on EOF; its grandchild (sleep) would live on.
	child := spawnShell(t, context.Background(), `sleep 300 </dev/null >/dev/null & echo $!; exec cat >/dev/null`)
	grandchild := firstPid(t, child)
	if err := child.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(patience)
	for !gone(grandchild) {
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild %d outlived Close", grandchild)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAChildThatIgnoresEOFAndSIGTERMIsKilled(t *testing.T) {
	child := spawnShell(t, context.Background(), `trap "" TERM; echo $$; while :; do sleep 0.05; done`)
	pid := firstPid(t, child)
	started := time.Now()
	_ = child.Close()
	select {
	case <-child.Exited():
	default:
		t.Fatal("Close returned before the child exited")
	}
	if took := time.Since(started); took < acp.ExitTimeout+acp.KillTimeout || !gone(pid) {
		t.Fatalf("the child %d was ended after %v (gone: %v)", pid, took, gone(pid))
	}
}

func TestCancellingTheParentsContextEndsTheChild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	child := spawnShell(t, ctx, `echo $$; exec cat`)
	pid := firstPid(t, child)
	cancel()
	select {
	case <-child.Exited():
	case <-time.After(patience):
		t.Fatalf("the child %d outlived its parent's ctx", pid)
	}
	if _, err := child.ReadFrame(); err == nil {
		t.Fatal("the transport still reads after its ctx ended")
	}
}

func TestAChildThatExitsEndsTheConnectionEvenIfAGrandchildHoldsItsStdout(t *testing.T) {
	child := spawnShell(t, context.Background(), `sleep 300 & exit 0`)
	conn := acp.NewConnection(child, acp.MethodHandlers{})
	defer conn.Close()
	_, err := conn.Request(context.Background(), "anything", json.RawMessage(`{}`))
	select {
	case <-conn.Done():
	case <-time.After(patience):
		t.Fatal("the connection stayed open after its child exited")
	}
	if err == nil {
		t.Fatal("a request to an exited child was answered")
	}
}

func TestSpawningAProgramThatIsNotThereFailsAtOnce(t *testing.T) {
	_, err := acp.SpawnCommand(context.Background(), exec.Command("/nonexistent/acp-agent"))
	if err == nil {
		t.Fatal("no error")
	}
}
