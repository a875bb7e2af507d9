//go:build unix

package acp

// Layer: typed layer (FileService's open flags on Unix).

import (
	"os"
	"syscall"
)

// readFlags opens a file to serve without blocking on a FIFO and without following a last
// symlink swapped in after the path was checked.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
