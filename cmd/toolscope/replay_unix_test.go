//go:build unix

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReplayEndlessInputIsRefused: /dev/zero has no line end; reading it
// stops at the longest line a recording may have.
func TestReplayEndlessInputIsRefused(t *testing.T) {
	r := toolscope(t, "", "replay", "--speed", "0", "/dev/zero")
	if r.code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
	}
	contains(t, r.stderr, "/dev/zero: line 1 is longer than 8 MiB, more than any line of a recording")
}

// TestReplayOfAPipeEndsWithTheContext: Ctrl-C ends a replay that waits on
// a named pipe, whether nothing has opened it to write yet or its writer
// sends nothing.
func TestReplayOfAPipeEndsWithTheContext(t *testing.T) {
	for _, writer := range []bool{false, true} {
		fifo := filepath.Join(t.TempDir(), "pipe")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		if writer {
			// Opened to read and write, a FIFO opens at once and never ends.
			w, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			io.WriteString(w, `{"toolscope":"v1","format":1}`+"\n")
		} else {
			// The open the replay gave up on still waits: a writer ends it.
			defer func() {
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			}()
		}
		ctx, cancel := context.WithCancel(context.Background())
		code := make(chan int)
		var stdout, stderr strings.Builder
		go func() { code <- replayCommand(ctx, []string{fifo}, &stdout, &stderr) }()
		cancel()
		if got := <-code; got != exitInterrupted || stdout.Len()+stderr.Len() != 0 {
			t.Errorf("with a writer %v: exit %d, output %q %q; want %d and nothing", writer, got, stdout.String(), stderr.String(), exitInterrupted)
		}
	}
}
