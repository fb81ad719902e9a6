package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestServePrintsTheLinks starts serve as a teacher behind a tunnel would
// (--auth on loopback) and uses the links it prints.
func TestServePrintsTheLinks(t *testing.T) {
	lines := serveLines(t, 8, []string{"TOOLSCOPE_ALLOW_HOST=class.example, room12.local"}, "--auth", "--allow-host", "mylaptop.local")
	printed := strings.Join(lines, "\n")
	if !strings.HasPrefix(lines[0], "toolscope is serving http://127.0.0.1:") || lines[1] != "Every request needs a token; they are new at each start." {
		t.Fatalf("serve printed:\n%s", printed)
	}
	// On loopback the operator's link is local, and the class's are at the
	// allowed names, from the environment and the flag.
	operator, viewer := lines[3], lines[5]
	base := operator[:strings.Index(operator, "/?token=")]
	port := base[strings.LastIndexByte(base, ':'):]
	token := viewer[strings.Index(viewer, "/?token="):]
	for _, want := range []string{"http://class.example" + port + token, "http://room12.local" + port + token, "http://mylaptop.local" + port + token} {
		if !strings.Contains(printed, "\n"+want) {
			t.Errorf("no viewer link %s in\n%s", want, printed)
		}
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || operator[len(base):] == token {
		t.Fatalf("operator link %s, viewer token %s", operator, token)
	}
	viewer = base + token
	for _, c := range []struct {
		url, method string
		status      int
	}{
		{base + "/api/health", "GET", http.StatusUnauthorized},
		{strings.Replace(operator, "/?", "/api/mcp?", 1), "GET", http.StatusOK},
		{strings.Replace(viewer, "/?", "/api/health?", 1), "GET", http.StatusOK},
		{strings.Replace(viewer, "/?", "/api/runs?", 1), "POST", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(c.method, c.url, strings.NewReader(`{"message": "hi"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s = %d, want %d", c.method, c.url, resp.StatusCode, c.status)
		}
	}
}

// serveLines starts serve with the demo model on a free loopback port and
// args, and returns the first n lines it prints; it stops at the test's
// end.
func serveLines(t *testing.T, n int, env []string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--backend", "demo", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	var lines []string
	for range n {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("serve printed %q, then %v", lines, err)
		}
		lines = append(lines, strings.TrimSpace(line))
	}
	return lines
}

// TestServeShareAPIRuns: the viewer link follows an /api/query run only
// with --share-api-runs.
func TestServeShareAPIRuns(t *testing.T) {
	for _, shared := range []bool{false, true} {
		args := []string{"--auth"}
		if shared {
			args = append(args, "--share-api-runs")
		}
		lines := serveLines(t, 6, nil, args...)
		operator, viewer := lines[3], lines[5]
		resp, err := http.Post(strings.Replace(operator, "/?", "/api/query?", 1), "application/json", strings.NewReader(`{"query": "What is 2+2?"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the operator's /api/query = %d", resp.StatusCode)
		}
		resp, err = http.Get(strings.Replace(viewer, "/?", "/api/runs/latest?", 1))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := map[bool]int{false: http.StatusNoContent, true: http.StatusOK}[shared]
		if resp.StatusCode != want {
			t.Errorf("--share-api-runs %v: the viewer's latest run = %d, want %d", shared, resp.StatusCode, want)
		}
	}
}

func TestServeAccessFlagsAreChecked(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
		says string
	}{
		{nil, []string{"--auth", "--no-auth"}, "--auth and --no-auth contradict each other"},
		{nil, []string{"--allow-host", "http://mylaptop.local"}, `"http://mylaptop.local" is not a host name`},
		{[]string{"TOOLSCOPE_ALLOW_HOST=a.local,,b.local"}, nil, `$TOOLSCOPE_ALLOW_HOST: "" is not a host name`},
	} {
		r := toolscopeWithEnv(t, c.env, append([]string{"serve", "--backend", "demo", "--addr", "127.0.0.1:0"}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%v %v: exit %d, stderr %q; want %d and %q", c.env, c.args, r.code, r.stderr, exitUsage, c.says)
		}
	}
}
