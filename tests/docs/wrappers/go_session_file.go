// docs/go-target.md's session file block: what it takes as known (an agent type embedding
// v1.UnimplementedAgent, a folder for the file and a session's cwd), and a use of each name it
// declares.
package main

import (
	"os"
	"path/filepath"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	"acp-protocol-sdk/wire"
)

type myAgent struct{ v1.UnimplementedAgent }

func main() {
	dir, cwd := os.TempDir(), "/home/me/project"
	// FRAGMENT
	_, _, _ = err, record, agent
}
