package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// version is that of the servers' tool sets.
const version = "1.0.0"

// Transports Serve and Handler speak.
const (
	TransportStdio = "stdio" // JSON-RPC on stdin and stdout
	TransportHTTP  = "http"  // streamable HTTP, at /mcp
	TransportSSE   = "sse"   // the older HTTP+SSE transport, at /sse
)

// paths are where Serve answers each HTTP transport.
var paths = map[string]string{TransportHTTP: "/mcp", TransportSSE: "/sse"}

// Handler serves s over HTTP with the given transport, TransportHTTP or
// TransportSSE, at whatever path it is mounted.
func Handler(s *mcp.Server, transport string) (http.Handler, error) {
	get := func(*http.Request) *mcp.Server { return s }
	var h http.Handler
	switch transport {
	case TransportHTTP:
		h = &revisions{
			// Idle sessions of clients that went away without a word are
			// dropped eventually.
			sessions:  mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute}),
			stateless: mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true}),
		}
	case TransportSSE:
		h = mcp.NewSSEHandler(get, nil)
	default:
		return nil, fmt.Errorf("unknown HTTP transport %q; use http or sse", transport)
	}
	// A web page the user visits must not be able to drive the tools.
	return http.NewCrossOriginProtection().Handler(h), nil
}

// Serve runs s until ctx ends or, over stdio, until the client closes its
// input. With TransportStdio it speaks on stdin and stdout; with
// TransportHTTP or TransportSSE it listens on addr, at the transport's
// path (/mcp or /sse), and writes the URL to stdout once it is listening. A server that
// stops because ctx ended returns nil.
func Serve(ctx context.Context, s *mcp.Server, transport, addr string, stdin io.Reader, stdout io.Writer) error {
	if transport == TransportStdio {
		err := s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopCloser{stdout}})
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	h, err := Handler(s, transport)
	if err != nil {
		return fmt.Errorf("unknown transport %q; use stdio, http or sse", transport)
	}
	path := paths[transport]
	mux := http.NewServeMux()
	mux.Handle(path, h)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("Not found: this MCP server answers at %s", path), http.StatusNotFound)
	})
	return ListenAndServe(ctx, addr, mux, []string{path}, stdout)
}

// ListenAndServe serves h on addr until ctx ends, and writes the URL of
// each of paths to stdout, one a line, once it is listening. Requests see
// ctx end, so that their event streams close; it returns nil once the
// server has shut down.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, paths []string, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	for _, path := range paths {
		fmt.Fprintf(stdout, "http://%s%s\n", ln.Addr(), path)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// Requests see ctx end, so the long-lived event streams close
		// and Shutdown does not wait on them.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	var unused unusedConns
	srv.ConnState = unused.track
	srv.RegisterOnShutdown(unused.closeAll)
	stopped := make(chan error, 1)
	stop := context.AfterFunc(ctx, func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		stopped <- srv.Shutdown(shutdownCtx)
	})
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		stop()
		return err
	}
	return <-stopped
}

// unusedConns tracks the connections that clients opened but have sent no
// request on. Go's own client dials ahead of need and may never use such a
// connection, and Shutdown waits five seconds before it counts one as
// idle; none has a request being answered, so shutting down closes them
// at once.
type unusedConns struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
}

func (u *unusedConns) track(c net.Conn, state http.ConnState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case state != http.StateNew:
		delete(u.conns, c)
	case u.closing:
		c.Close()
	default:
		if u.conns == nil {
			u.conns = make(map[net.Conn]struct{})
		}
		u.conns[c] = struct{}{}
	}
}

func (u *unusedConns) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closing = true
	for c := range u.conns {
		c.Close()
	}
	clear(u.conns)
}

// nopCloser keeps the SDK from closing the caller's stdout.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
