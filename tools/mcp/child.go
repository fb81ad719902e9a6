package mcp

import (
	"bufio"
	"errors"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Child is a stdio MCP server run for a client other than a Hub: the
// bridge (package mcpbridge) runs one for each session of its HTTP
// clients and passes their JSON-RPC messages through. It is started and
// stopped as a Hub's stdio servers are: in a process group of its own,
// its stderr read line by line, and stopped with whatever it started.
type Child struct {
	proc   *process
	log    lineLog
	stderr func(line string)
}

// StartChild starts the stdio server spec names. Each line the server
// writes to stderr goes to stderr, and so does each line on its stdout
// that is not JSON-RPC, marked "stdout: ". The Child must be stopped.
func StartChild(spec ServerSpec, stderr func(line string)) (*Child, error) {
	if spec.transport() != TransportStdio {
		return nil, errors.New("a child is a stdio server: it needs a command, not a URL")
	}
	if err := spec.check(); err != nil {
		return nil, err
	}
	c := &Child{stderr: stderr}
	p, err := startProcess(spec, c.line)
	if err != nil {
		return nil, err
	}
	c.proc = p
	return c, nil
}

func (c *Child) line(text string) {
	c.log.add(text)
	c.stderr(text)
}

// PID is the child's process ID.
func (c *Child) PID() int { return c.proc.cmd.Process.Pid }

// Transport speaks JSON-RPC with the child on its stdin and stdout. It
// is good for one connection, whose Close closes both.
func (c *Child) Transport() sdk.Transport {
	return &sdk.IOTransport{
		Reader: &stdoutFilter{r: bufio.NewReader(c.proc.stdout), c: c.proc.stdout, stray: func(line string) { c.line("stdout: " + line) }},
		Writer: c.proc.stdin,
	}
}

// HowEnded says how a child that closed its stdout ended: as in "exit status
// 3" once it has exited, which it gets a second to do, or "it closed its
// stdout" if it has not.
func (c *Child) HowEnded() string { return c.proc.ended() }

// Tail quotes the last lines the child wrote to stderr, for an error
// message ("; its last output:\n…"), or returns "".
func (c *Child) Tail() string { return c.log.tail() }

// Stop ends the child as a Hub ends its servers: its input is closed,
// then it is sent SIGTERM after grace, then SIGKILL after grace again,
// with whatever it started. Stop returns once the child has been reaped.
// Call it once.
func (c *Child) Stop(grace time.Duration) { c.proc.stop(grace) }
