package mcp

import (
	"bufio"
	"errors"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is a running stdio MCP server.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our ends of its pipes
	stdout *os.File
	stderr *os.File

	exited  chan struct{} // closed once the process is reaped
	exitErr error         // how it ended; set before exited is closed
	drained chan struct{} // closed once its stderr has been read to the end
}

// startProcess starts a stdio server. Each line it writes to stderr goes
// to stderr.
//
// The pipes are plain files rather than the ones exec.Cmd makes, so that
// reaping the process never closes stdout under the SDK before it has
// read the server's last words.
func startProcess(spec ServerSpec, stderr func(line string)) (*process, error) {
	cmd := exec.Command(spec.Command, spec.Args...)
	if len(spec.Env) > 0 {
		cmd.Env = os.Environ()
		for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
			cmd.Env = append(cmd.Env, k+"="+spec.Env[k])
		}
	}
	ownProcessGroup(cmd)

	var pipes [3][2]*os.File // stdin, stdout, stderr: each a read and a write end
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			for _, pipe := range pipes[:i] {
				closeFiles(pipe[:]...)
			}
			return nil, err
		}
		pipes[i] = [2]*os.File{r, w}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes[0][0], pipes[1][1], pipes[2][1]
	p := &process{
		cmd:   cmd,
		stdin: pipes[0][1], stdout: pipes[1][0], stderr: pipes[2][0],
		exited: make(chan struct{}), drained: make(chan struct{}),
	}
	err := cmd.Start()
	closeFiles(pipes[0][0], pipes[1][1], pipes[2][1]) // the child has its own copies
	if err != nil {
		closeFiles(p.stdin, p.stdout, p.stderr)
		return nil, err
	}

	go p.readStderr(stderr)
	go p.reap()
	return p, nil
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

func (p *process) reap() {
	err := p.cmd.Wait()
	// Whatever the server started and left behind shares its process group
	// and would hold its pipes open, hiding that it has gone.
	signalGroup(p.cmd.Process.Pid, syscall.SIGKILL)
	p.exitErr = err
	close(p.exited)
}

func (p *process) readStderr(stderr func(line string)) {
	defer close(p.drained)
	r := bufio.NewReader(p.stderr)
	for {
		line, truncated, err := readLine(r, maxLogLine)
		if text := strings.TrimRight(string(line), "\r\n"); text != "" || truncated {
			if truncated {
				text += "…"
			}
			stderr(text)
		}
		if err != nil {
			return
		}
	}
}

// exitedWithin reports whether the process has ended, waiting up to d for
// it: a server that closed its stdout is usually about to exit. Its stderr
// ends with it, and the reader gets as long again to catch up, so that
// errors can quote the last lines.
func (p *process) exitedWithin(d time.Duration) bool {
	if !p.waitExit(d) {
		return false
	}
	select {
	case <-p.drained:
	case <-time.After(d):
	}
	return true
}

func (p *process) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// ended says how a process that closed its stdout ended: as in "exit
// status 2" once it has exited, which it gets a second to do, or "it
// closed its stdout" if it has not.
func (p *process) ended() string {
	if p.exitedWithin(time.Second) {
		return p.exitStatus()
	}
	return "it closed its stdout"
}

// exitStatus says how the process ended, as in "exit status 2".
func (p *process) exitStatus() string {
	if p.exitErr == nil {
		return "exit status 0"
	}
	return p.exitErr.Error()
}

// stop ends the server the way the MCP specification asks: close its
// input, and if it is still running after grace send SIGTERM, and after
// grace again SIGKILL. It returns once the process has been reaped.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		if p.waitExit(grace) {
			break
		}
		signalGroup(p.cmd.Process.Pid, sig)
	}
	<-p.exited // SIGKILL cannot be refused
	// A process outside the group may still hold stderr open; do not let
	// it keep the reader alive.
	select {
	case <-p.drained:
	case <-time.After(grace):
		p.stderr.Close()
		<-p.drained
	}
	p.stdout.Close()
	p.stderr.Close()
}

// readLine reads through the next newline and returns at most max bytes
// of the line; truncated reports whether there were more.
func readLine(r *bufio.Reader, max int) (line []byte, truncated bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		keep := min(len(chunk), max-len(line))
		line = append(line, chunk[:keep]...)
		truncated = truncated || keep < len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, truncated, err
		}
	}
}

// Bounds of a server's log: the lines kept, and the bytes kept of each.
const (
	logLines   = 50
	maxLogLine = 1000
)

// lineLog keeps the last lines a server wrote to stderr, and any stray
// lines from its stdout, for errors and the page.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(line string) {
	if len(line) > maxLogLine {
		line = strings.ToValidUTF8(line[:maxLogLine], "") + "…"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == logLines {
		l.lines = slices.Delete(l.lines, 0, 1)
	}
	l.lines = append(l.lines, line)
}

// last returns up to n of the latest lines, oldest first.
func (l *lineLog) last(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines[len(l.lines)-min(n, len(l.lines)):])
}

// tail quotes the last lines for an error message, or returns "".
func (l *lineLog) tail() string {
	lines := l.last(5)
	if len(lines) == 0 {
		return ""
	}
	return "; its last output:\n" + strings.Join(lines, "\n")
}
