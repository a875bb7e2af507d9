package acp

// Layer: typed layer (a helper a client's handlers call, or UnimplementedClient answers from).
//
// The client side of fs/read_text_file and fs/write_text_file, safe against the agent: an agent is
// a program the user did not write, so what it asks to read or write is checked here before any
// byte moves.
//   - Paths must be absolute (ACP: "All file paths in the protocol MUST be absolute"). Each is
//     resolved, symlinks included, and refused unless it lies under one of the allowed roots,
//     with an error that names the roots (-32602), or -32002 (ACP "Resource not found") for a
//     file under a root that does not exist.
//   - Only regular files: a FIFO, a device (/dev/zero) or a directory is refused. The file is
//     opened non-blocking and without following a last symlink, then checked again (fstat), so a
//     FIFO or a link swapped in after the check blocks nothing and escapes nowhere.
//   - line/limit read only the lines they ask for, in bounded chunks; a reply over MaxBytes is
//     refused, not built: memory stays bounded whatever the file.
//   - Writes follow the same rules and are atomic: a temporary file in the target's folder, then a
//     rename, so a reader never sees half a file and a failed write leaves the old one intact.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"acp-protocol-sdk/wire"
)

// ResourceNotFound is ACP's ErrorCode "A given resource, such as a session or file, was not found".
const ResourceNotFound = -32002

// DefaultMaxBytes bounds what a FileService reads or writes in one request.
const DefaultMaxBytes = 10 << 20

const readChunk = 64 << 10

var newline = []byte("\n")

// FileService reads and writes text files for an agent, only under its roots. Safe for
// concurrent use; the zero value serves nothing.
type FileService struct {
	// MaxBytes bounds a reply and a write (DefaultMaxBytes when 0).
	MaxBytes int

	mu    sync.RWMutex
	roots []string
}

// NewFileService serves files under roots (Allow adds more: a session's cwd on session/new).
func NewFileService(roots ...string) *FileService {
	s := &FileService{}
	for _, root := range roots {
		s.Allow(root)
	}
	return s
}

// Allow serves files under root too.
func (s *FileService) Allow(root string) {
	real := realPath(filepath.Clean(absolute(root)))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, known := range s.roots {
		if known == real {
			return
		}
	}
	s.roots = append(s.roots, real)
}

// Roots are the allowed roots, resolved.
func (s *FileService) Roots() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]string{}, s.roots...)
}

// ReadTextFile is the text of path, from 1-based line and at most limit lines when they are set.
func (s *FileService) ReadTextFile(path string, line, limit wire.Opt[uint32]) (string, error) {
	first := line.Or(1)
	if first < 1 {
		return "", s.refuse(path, "`line` must be 1 or more", InvalidParams)
	}
	real, err := s.resolve(path)
	if err != nil {
		return "", err
	}
	file, err := os.OpenFile(real, readFlags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", s.refuse(path, "no such file", ResourceNotFound)
	}
	if err != nil {
		return "", s.refuse(path, "cannot open the file ("+reasonOf(err)+")", InvalidParams)
	}
	defer file.Close()
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", s.refuse(path, "not a regular file", InvalidParams)
	}
	most, bounded := limit.Get()
	text, err := s.readLines(bufio.NewReaderSize(file, readChunk), path, first, int64(most), bounded)
	return string(text), err // json.Marshal writes invalid UTF-8 as U+FFFD
}

// readLines reads lines first… (at most limit when bounded), never holding more than MaxBytes
// and a chunk.
func (s *FileService) readLines(reader *bufio.Reader, path string, first uint32, limit int64, bounded bool) ([]byte, error) {
	for skipped := uint32(1); skipped < first; {
		piece, err := reader.ReadSlice('\n')
		if bytes.HasSuffix(piece, newline) {
			skipped++
		} else if err != nil && err != bufio.ErrBufferFull {
			return nil, s.readFailed(path, err)
		}
	}
	var text []byte
	for lines := int64(0); !bounded || lines < limit; {
		piece, err := reader.ReadSlice('\n')
		if len(text)+len(piece) > s.maxBytes() {
			return nil, s.refuse(path, "the reply would exceed "+itoa(s.maxBytes())+" bytes; ask for fewer lines", InvalidParams)
		}
		text = append(text, piece...)
		if bytes.HasSuffix(piece, newline) {
			lines++
		} else if err != nil && err != bufio.ErrBufferFull {
			return text, s.readFailed(path, err)
		}
	}
	return text, nil
}

func (s *FileService) readFailed(path string, err error) error {
	if err == io.EOF {
		return nil
	}
	return s.refuse(path, "cannot read the file ("+reasonOf(err)+")", InvalidParams)
}

// WriteTextFile replaces path's content atomically (the file may not exist yet; its folder must).
func (s *FileService) WriteTextFile(path, content string) error {
	if len(content) > s.maxBytes() {
		return s.refuse(path, "the content exceeds "+itoa(s.maxBytes())+" bytes", InvalidParams)
	}
	real, err := s.resolve(path)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	existing, err := os.Lstat(real)
	switch {
	case err == nil && !existing.Mode().IsRegular():
		return s.refuse(path, "not a regular file", InvalidParams)
	case err == nil:
		mode = existing.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return s.refuse(path, "cannot inspect the file ("+reasonOf(err)+")", InvalidParams)
	}
	folder, name := filepath.Split(real)
	if info, err := os.Stat(folder); err != nil || !info.IsDir() {
		return s.refuse(path, "the folder does not exist", ResourceNotFound)
	}
	if err := replace(folder, name, content, mode); err != nil {
		return s.refuse(path, "cannot write the file ("+reasonOf(err)+")", InvalidParams)
	}
	return nil
}

// replace writes a temporary file in folder, syncs it, then renames it over name.
func replace(folder, name, content string, mode fs.FileMode) error {
	temporary, err := os.CreateTemp(folder, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	_, err = temporary.WriteString(content)
	if err == nil {
		err = temporary.Sync()
	}
	if closeErr := temporary.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Chmod(temporary.Name(), mode)
	}
	if err == nil {
		err = os.Rename(temporary.Name(), filepath.Join(folder, name))
	}
	if err != nil {
		_ = os.Remove(temporary.Name())
	}
	return err
}

// resolve is the real path of path, refused unless it lies under an allowed root.
func (s *FileService) resolve(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", s.refuse(path, "the path is not absolute", InvalidParams)
	}
	real := realPath(filepath.Clean(path))
	for _, root := range s.Roots() {
		if real == root || strings.HasPrefix(real, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", s.refuse(path, "the path is outside the allowed roots", InvalidParams)
}

func (s *FileService) maxBytes() int {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultMaxBytes
}

// refuse is the error the request is answered with: the reason, the path and the roots, in the
// message and in data (as the Python and TypeScript runtimes answer it).
func (s *FileService) refuse(path, reason string, code int) *Error {
	roots := s.Roots()
	named := strings.Join(roots, ", ")
	if named == "" {
		named = "none"
	}
	data, _ := wire.Marshal(struct {
		Path    string   `json:"path"`
		Roots   []string `json:"roots"`
		Details string   `json:"details"`
	}{path, roots, reason})
	// -32002's message begins with the code's title in the schema, "Resource not found", as the
	// official SDKs' `resourceNotFound` errors do: agents match those words (gemini-cli).
	title := ""
	if code == ResourceNotFound {
		title = "Resource not found: "
	}
	return &Error{Code: code, Message: title + reason + ": " + path + " (allowed roots: " + named + ")", Data: data}
}

// realPath resolves symlinks in the part of path that exists and keeps the rest as written (a
// file to be written need not exist yet).
func realPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	parent := filepath.Dir(path)
	if parent == path {
		return path
	}
	return filepath.Join(realPath(parent), filepath.Base(path))
}

func absolute(path string) string {
	if resolved, err := filepath.Abs(path); err == nil {
		return resolved
	}
	return path
}

func reasonOf(err error) string {
	var pathError *fs.PathError
	if errors.As(err, &pathError) {
		return pathError.Err.Error()
	}
	return err.Error()
}
