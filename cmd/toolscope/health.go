package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// healthCommand asks a running `toolscope serve` whether it is healthy,
// for a container's HEALTHCHECK, which has no curl: GET /api/health at
// --addr ($TOOLSCOPE_ADDR, as serve reads it) or --url. Exit 0 when it
// answers and its default backend can answer too, else 1; one line says
// which.
func healthCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newBareCommand("health", "[flags]", stderr)
	addr, link, timeout := "127.0.0.1:8000", "", 10*time.Second
	c.withEnv(groupServer, "addr", "host:port", "where toolscope serve listens, as its --addr says; 0.0.0.0 and [::] are asked on loopback", text{&addr})
	c.add(groupServer, "url", "URL", "toolscope's address instead, such as http://192.168.1.20:8000, or a link it printed (?token=… included)", text{&link})
	// Longer than the 5 s /api/health gives Ollama to answer, so that an
	// Ollama gone quiet is told as such, not as a toolscope that is.
	c.add(groupServer, "timeout", "duration", "how long to wait for the answer", (*durationValue)(&timeout))
	if _, code, ok := c.parse(args, operands{"", "give the address with --addr or --url"}); !ok {
		return code
	}
	if timeout <= 0 {
		fmt.Fprintf(stderr, "toolscope health: --timeout %s must be more than 0\n", timeout)
		return exitUsage
	}
	target, err := healthURL(addr, link)
	if err != nil {
		fmt.Fprintf(stderr, "toolscope health: %v\n", err)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	verdict, err := checkHealth(ctx, target)
	where := "toolscope at " + origin(target)
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "%s %s\n", where, verdict)
		return exitOK
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		fmt.Fprintf(stderr, "%s: no answer within %s\n", where, timeout)
	default:
		fmt.Fprintf(stderr, "%s: %v\n", where, err)
	}
	return exitError
}

// healthURL is /api/health at link when given, else at addr, a listening
// address: one on every interface is asked on loopback, the interface
// that is there whatever the network.
func healthURL(addr, link string) (*url.URL, error) {
	if link != "" {
		u, err := url.Parse(link)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--url %q is not an address such as http://127.0.0.1:8000", link)
		}
		u.Path, u.RawPath, u.Fragment = "/api/health", "", ""
		return u, nil // the query keeps a link's ?token=
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q is not host:port, such as 127.0.0.1:8000", addr)
	}
	switch ip := net.ParseIP(host); {
	case host == "" || ip != nil && ip.Equal(net.IPv4zero):
		host = "127.0.0.1"
	case ip != nil && ip.Equal(net.IPv6unspecified):
		host = "::1"
	}
	return &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port), Path: "/api/health"}, nil
}

// origin is where target is, without its path or token, to be printed.
func origin(target *url.URL) string {
	return (&url.URL{Scheme: target.Scheme, Host: target.Host}).String()
}

// healthAnswer is what checkHealth reads of GET /api/health.
type healthAnswer struct {
	OK      bool   `json:"ok"`
	Backend string `json:"backend"`
	Model   string `json:"model"`
	Error   string `json:"error"`
}

// checkHealth asks target, and returns what to say of a toolscope that is
// healthy, or an error that says why it is not.
func checkHealth(ctx context.Context, target *url.URL) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var opErr *net.OpError
		if errors.As(err, &opErr) && opErr.Op == "dial" {
			return "", fmt.Errorf("nothing answers: %v (is toolscope serve running, at this address?)", opErr.Err)
		}
		// A *url.Error quotes the URL, whose token a container's
		// health log would keep: the caller names the origin.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			return "", urlErr.Err
		}
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized && askedByToolscope(resp) && !target.Query().Has("token"):
		// Listening beyond loopback, toolscope asks every request for
		// a token, and tokens are new at each start: in a container the
		// check cannot know them. Its own refusal shows it serving.
		return "is serving; it asks for a token, so its model was not checked (--url with a link it printed checks that too)", nil
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("GET /api/health answered %s: %s", resp.Status, errorText(body))
	}
	var h healthAnswer
	if err := json.Unmarshal(body, &h); err != nil || h.Backend == "" {
		return "", fmt.Errorf("GET /api/health answered what toolscope does not: %.80q", body)
	}
	if !h.OK {
		return "", fmt.Errorf("serving, but %s cannot answer: %s", h.Backend, h.Error)
	}
	return fmt.Sprintf("is healthy: model %s on %s", h.Model, h.Backend), nil
}

// askedByToolscope reports whether a 401 is toolscope's own, which names
// its realm, rather than another server's at that address.
func askedByToolscope(resp *http.Response) bool {
	return strings.Contains(resp.Header.Get("WWW-Authenticate"), `realm="toolscope"`)
}

// errorText is the message of toolscope's JSON error, {"error": "…"}, or
// the start of another answer.
func errorText(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return fmt.Sprintf("%.80q", body)
}
