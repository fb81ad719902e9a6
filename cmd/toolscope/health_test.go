package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/nettest"
)

// servingAt is the host:port in serve's first line, "toolscope is serving
// http://HOST:PORT (model …)".
func servingAt(t *testing.T, line string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(line, "toolscope is serving http://")
	addr, _, ok2 := strings.Cut(rest, " ")
	if !ok || !ok2 {
		t.Fatalf("serve printed %q", line)
	}
	return addr
}

// TestHealthOfServe checks a real serve: healthy on loopback, where it asks
// for no token; and listening on every interface, as in the image, where
// TOOLSCOPE_ADDR=0.0.0.0:… is asked on loopback and toolscope's refusal
// without a token shows it serving, while a link it printed checks more.
func TestHealthOfServe(t *testing.T) {
	t.Run("loopback", func(t *testing.T) {
		addr := servingAt(t, serveLines(t, 1, nil)[0])
		r := toolscope(t, "", "health", "--addr", addr)
		if r.code != exitOK || r.stdout != "toolscope at http://"+addr+" is healthy: model toolscope-demo on demo\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("every interface, with tokens", func(t *testing.T) {
		lines := serveLines(t, 6, nil, "--addr", "0.0.0.0:0")
		_, port, _ := net.SplitHostPort(servingAt(t, lines[0]))
		r := toolscopeWithEnv(t, []string{"TOOLSCOPE_ADDR=0.0.0.0:" + port}, "health")
		if r.code != exitOK || !strings.HasPrefix(r.stdout, "toolscope at http://127.0.0.1:"+port+" is serving; it asks for a token") {
			t.Errorf("TOOLSCOPE_ADDR=0.0.0.0:%s: exit %d, stdout %q, stderr %q", port, r.code, r.stdout, r.stderr)
		}
		viewer := lines[5]
		if r := toolscope(t, "", "health", "--url", viewer); r.code != exitOK || !strings.HasSuffix(r.stdout, " is healthy: model toolscope-demo on demo\n") {
			t.Errorf("--url %s: exit %d, stdout %q, stderr %q", viewer, r.code, r.stdout, r.stderr)
		}
		stale := "http://127.0.0.1:" + port + "/?token=ANOLDTOKEN"
		if r := toolscope(t, "", "health", "--url", stale); r.code != exitError || !strings.Contains(r.stderr, "401 Unauthorized: a valid token is needed") {
			t.Errorf("--url %s: exit %d, stdout %q, stderr %q", stale, r.code, r.stdout, r.stderr)
		}
	})
}

// TestHealthSaysWhatIsWrong: each way of not being healthy exits 1 with
// one line that says which.
func TestHealthSaysWhatIsWrong(t *testing.T) {
	ollamaGone := servingAt(t, serveLines(t, 1, nil, "--backend", "ollama", "--ollama-host", nettest.ClosedAddress(t))[0])
	notToolscope := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="router"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer notToolscope.Close()
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer silent.Close()
	hangsUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	defer hangsUp.Close()
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"nothing listening", []string{"--addr", nettest.ClosedAddress(t)}, "nothing answers: connect: connection refused"},
		{"Ollama gone", []string{"--addr", ollamaGone}, "serving, but ollama cannot answer: Ollama is not reachable at"},
		{"another server's 401", []string{"--url", notToolscope.URL}, "GET /api/health answered 401 Unauthorized"},
		{"no answer", []string{"--url", silent.URL, "--timeout", "300ms"}, "no answer within 300ms"},
		{"hung up", []string{"--url", hangsUp.URL + "/?token=s3cret"}, "EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := toolscope(t, "", append([]string{"health"}, c.args...)...)
			if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, c.says) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and one line with %q", r.code, r.stdout, r.stderr, exitError, c.says)
			}
			if strings.Contains(r.stderr, "s3cret") {
				t.Errorf("stderr %q shows the token, which a container's health log keeps", r.stderr)
			}
		})
	}
}

func TestHealthUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--addr", "8000"}, `--addr "8000" is not host:port`},
		{[]string{"--url", "127.0.0.1:8000"}, `--url "127.0.0.1:8000" is not an address`},
		{[]string{"http://127.0.0.1:8000"}, "takes flags only"},
		{[]string{"--timeout", "0s"}, "--timeout 0s must be more than 0"},
	} {
		if r := toolscope(t, "", append([]string{"health"}, c.args...)...); r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, exitUsage, c.says)
		}
	}
}

// TestHealthURL: an address on every interface is asked on loopback; a
// link keeps its token and loses its path.
func TestHealthURL(t *testing.T) {
	for _, c := range []struct{ addr, link, want string }{
		{"0.0.0.0:8000", "", "http://127.0.0.1:8000/api/health"},
		{":8000", "", "http://127.0.0.1:8000/api/health"},
		{"[::]:8000", "", "http://[::1]:8000/api/health"},
		{"192.168.1.20:8000", "", "http://192.168.1.20:8000/api/health"},
		{"0.0.0.0:8000", "https://class.example/?token=ABC#top", "https://class.example/api/health?token=ABC"},
	} {
		got, err := healthURL(c.addr, c.link)
		if err != nil || got.String() != c.want {
			t.Errorf("healthURL(%q, %q) = %v, %v; want %s", c.addr, c.link, got, err, c.want)
		}
	}
}
