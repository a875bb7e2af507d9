//go:build !unix

package acp

// Layer: typed layer (FileService's open flags where there is no O_NONBLOCK / O_NOFOLLOW).

import "os"

const readFlags = os.O_RDONLY
