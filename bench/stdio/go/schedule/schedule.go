// Package schedule is the two-process workloads of bench/stdio/schedule.py for the Go clients:
// the phases in order (warm-ups first, not reported), and the JSON line every client prints.
package schedule

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Chunk is the text of every agent_message_chunk of a flood; FileText every read's content.
const (
	Chunk    = "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. "
	FileText = "line one\nline two\n"
	ReadPath = "/bench/file.txt"
)

type phase struct {
	name, text string
	count      int
}

func phases(n int) []phase {
	warm := max(n/10, 50)
	return []phase{
		{"warm", fmt.Sprintf("flood %d", warm), 0},
		{"warm2", fmt.Sprintf("reads %d 8", warm), 0},
		{"notify", fmt.Sprintf("flood %d", n), n},
		{"rt1", fmt.Sprintf("reads %d 1", n), n},
		{"rt64", fmt.Sprintf("reads %d 64", n), n},
	}
}

// Arguments reads `client N LOOP -- AGENT COMMAND…`.
func Arguments() (int, []string) {
	for i, arg := range os.Args {
		if arg == "--" && i >= 2 && i+1 < len(os.Args) {
			n, err := strconv.Atoi(os.Args[1])
			if err == nil {
				return n, os.Args[i+1:]
			}
		}
	}
	fmt.Fprintln(os.Stderr, "usage: client N LOOP -- AGENT COMMAND...")
	os.Exit(2)
	return 0, nil
}

// Measure runs every phase through prompt, checks the flood arrived whole and prints the line.
func Measure(name string, n int, prompt func(text string) error, updates func() int64) error {
	rates := map[string]any{"client": name}
	for _, p := range phases(n) {
		before := updates()
		started := time.Now()
		if err := prompt(p.text); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		seconds := time.Since(started).Seconds()
		if p.name == "notify" && updates()-before != int64(n) {
			return fmt.Errorf("%s: saw %d of %d updates", name, updates()-before, n)
		}
		if p.count > 0 {
			rates[p.name] = int64(float64(p.count)/seconds + 0.5)
		}
	}
	line, err := json.Marshal(rates)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}

// Work is what a prompt's text asks of the agent: a flood of n updates, or n reads k at a time.
func Work(text string) (kind string, n, k int) {
	var a, b int
	if _, err := fmt.Sscanf(text, "reads %d %d", &a, &b); err == nil {
		return "reads", a, b
	}
	if _, err := fmt.Sscanf(text, "flood %d", &a); err == nil {
		return "flood", a, 0
	}
	return "", 0, 0
}

// Reads runs n calls of read, k at a time.
func Reads(n, k int, read func() error) error {
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	failed := make(chan error, k)
	for range k {
		go func() {
			for range jobs {
				if err := read(); err != nil {
					failed <- err
					return
				}
			}
			failed <- nil
		}()
	}
	var first error
	for range k {
		if err := <-failed; err != nil && first == nil {
			first = err
		}
	}
	return first
}
