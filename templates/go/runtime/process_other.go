//go:build !unix

package acp

// Layer: transport (a spawned program where there are no process groups).

import (
	"os"
	"os/exec"
)

// Without process groups, the child alone is ended.
var (
	terminate = os.Kill
	kill      = os.Kill
)

func ownGroup(*exec.Cmd) {}

func (p *ProcessTransport) signalGroup(signal os.Signal) {
	_ = p.cmd.Process.Signal(signal)
}

func (p *ProcessTransport) groupAlive() bool {
	return false
}
