package retrieve_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/catalogue"
	"github.com/toolscope/toolscope/tools/retrieve"
	"github.com/toolscope/toolscope/tools/retrieve/retrievetest"
)

func tool(name, desc string, params ...string) *catalogue.Tool {
	var props []string
	for _, p := range params {
		name, d, _ := strings.Cut(p, ":")
		props = append(props, fmt.Sprintf(`%q:{"type":"string","description":%q}`, name, d))
	}
	return &catalogue.Tool{ToolName: name, ToolDescription: desc, InputSchema: []byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)}
}

// small is a fixed catalogue whose rankings the tests below pin down.
func small() []tools.Tool {
	return retrievetest.AsTools([]*catalogue.Tool{
		tool("send_mail", "Send an email to one recipient.", "to:Recipient address", "subject:Subject line"),
		tool("schedule_meeting", "Put a meeting on the calendar.", "title:What it is about", "date:Day, YYYY-MM-DD"),
		tool("cancel_meeting", "Cancel a meeting by its ID.", "meeting_id:The meeting"),
		tool("getWeatherForecast", "Weather for the coming days.", "city:City name"),
		tool("create-github-issue", "Open an issue in a repository.", "repo:owner/name", "title:Summary"),
		tool("query_database", "Run a read-only SQL statement.", "sql:The statement"),
	})
}

func TestLexicalRanking(t *testing.T) {
	x := retrieve.New(retrieve.Options{})
	x.Replace(small())
	for query, want := range map[string]string{
		"email my boss the report":          "send_mail",
		"what's the weather forecast":       "getWeatherForecast", // camelCase split
		"file a GitHub issue":               "create-github-issue",
		"cancel tomorrow's meeting":         "cancel_meeting",
		"run a SQL statement on the orders": "query_database", // a parameter's name
		"recipient of the message":          "send_mail",      // a parameter's description
	} {
		sel := x.Select(context.Background(), retrieve.Lexical, query, 1, nil)
		if got := sel.Names(); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: got %v, want [%s]", query, got, want)
		}
		if sel.LeftOut != 5 || sel.Fallback != nil || sel.Retriever != retrieve.Lexical {
			t.Errorf("%q: %+v", query, sel)
		}
	}
	if got := x.Select(context.Background(), retrieve.Lexical, "meeting", 5, nil).Names(); !slices.Equal(got, []string{"cancel_meeting", "schedule_meeting"}) {
		t.Errorf("meeting: got %v; want only the tools that share a word, shorter text first", got)
	}
}

func TestKeptToolsStayOffered(t *testing.T) {
	x := retrieve.New(retrieve.Options{})
	x.Replace(small())
	first := x.Select(context.Background(), retrieve.Lexical, "schedule a meeting on Friday", 1, nil)
	if got := first.Names(); !slices.Equal(got, []string{"schedule_meeting"}) {
		t.Fatalf("first request: %v", got)
	}
	// The follow-up shares no word with the tool called first; it stays.
	follow := x.Select(context.Background(), retrieve.Lexical, "and email Ana about it", 1, first.Names())
	if got := follow.Names(); !slices.Equal(got, []string{"send_mail", "schedule_meeting"}) {
		t.Fatalf("follow-up: %v", got)
	}
	if c := follow.Tools[1]; !c.Kept || c.Score != 0 {
		t.Errorf("kept tool: %+v", c)
	}
	if follow.LeftOut != 4 {
		t.Errorf("left out %d, want 4", follow.LeftOut)
	}
	// A kept tool that ranks anyway is not marked, nor offered twice; one
	// that is gone is ignored.
	again := x.Select(context.Background(), retrieve.Lexical, "send mail", 1, []string{"send_mail", "gone"})
	if got := again.Names(); !slices.Equal(got, []string{"send_mail"}) || again.Tools[0].Kept {
		t.Errorf("again: %+v", again.Tools)
	}
}

func TestEveryToolWhenKIsZero(t *testing.T) {
	x := retrieve.New(retrieve.Options{Embedder: retrievetest.StandIn{}})
	x.Replace(small())
	sel := x.Select(context.Background(), retrieve.Embedding, "weather", 0, nil)
	if len(sel.Tools) != 6 || sel.LeftOut != 0 || sel.Tools[0].Name != "getWeatherForecast" {
		t.Errorf("%+v", sel)
	}
}

// counting counts the texts an embedder is asked for.
type counting struct {
	retrieve.Embedder
	texts atomic.Int64
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

func TestReplaceEmbedsOnlyWhatChanged(t *testing.T) {
	e := &counting{Embedder: retrievetest.StandIn{}}
	x := retrieve.New(retrieve.Options{Embedder: e})
	x.Replace(small())
	for _, r := range []retrieve.Retriever{retrieve.Embedding, retrieve.Hybrid} {
		if sel := x.Select(context.Background(), r, "weather in Oslo", 1, nil); sel.Names()[0] != "getWeatherForecast" || sel.Fallback != nil {
			t.Fatalf("%s: %+v", r, sel)
		}
	}
	if n := e.texts.Load(); n != 6+2 { // the tools once, then one query each
		t.Fatalf("embedded %d texts, want 8", n)
	}
	changed := append(small()[1:], tool("send_mail", "Send an email, with attachments.", "to:Recipient address"), tool("translate", "Translate text into another language.", "text:Text"))
	x.Replace(changed)
	sel := x.Select(context.Background(), retrieve.Embedding, "translate this into German", 1, nil)
	if sel.Names()[0] != "translate" {
		t.Errorf("after replace: %v", sel.Names())
	}
	if n := e.texts.Load() - 8; n != 2+1 { // the changed tool, the new one, the query
		t.Errorf("replace embedded %d texts, want 3", n)
	}
	if got := x.Select(context.Background(), retrieve.Lexical, "attachments", 1, nil).Names(); !slices.Equal(got, []string{"send_mail"}) {
		t.Errorf("the changed description is not searched: %v", got)
	}
	if x.Len() != 7 {
		t.Errorf("Len %d", x.Len())
	}
}

func TestEmbedderProblemsFallBackToLexical(t *testing.T) {
	server := retrievetest.NewOllamaEmbed(t, "nomic-embed-text")
	base, _ := url.Parse(server.URL)
	down, _ := url.Parse("http://127.0.0.1:1") // nothing listens on port 1
	for _, c := range []struct {
		name     string
		embedder retrieve.Embedder
		problem  string
		do       string
	}{
		{"model not pulled", retrieve.NewOllama(base, "", nil), `the embedding model "all-minilm" is not pulled`, "run 'ollama pull all-minilm'"},
		{"Ollama not running", retrieve.NewOllama(down, "all-minilm", nil), "Ollama is not reachable at http://127.0.0.1:1", "start Ollama with 'ollama serve'"},
		{"no embedder", nil, "no embedder is configured", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := retrieve.New(retrieve.Options{Embedder: c.embedder})
			x.Replace(small())
			for _, r := range []retrieve.Retriever{retrieve.Embedding, retrieve.Hybrid} {
				sel := x.Select(context.Background(), r, "email my boss", 1, nil)
				if sel.Asked != r || sel.Retriever != retrieve.Lexical || !slices.Equal(sel.Names(), []string{"send_mail"}) {
					t.Errorf("%s: %+v", r, sel)
				}
				if f := sel.Fallback; f == nil || !strings.HasPrefix(f.Problem, c.problem) || f.Do != c.do {
					t.Errorf("%s: fallback %+v, want %q and %q", r, f, c.problem, c.do)
				}
			}
		})
	}
}

func TestCacheSurvivesRestart(t *testing.T) {
	server := retrievetest.NewOllamaEmbed(t, "all-minilm")
	base, _ := url.Parse(server.URL)
	dir := t.TempDir()
	start := func() *retrieve.Index {
		x := retrieve.New(retrieve.Options{Embedder: retrieve.NewOllama(base, "all-minilm", nil), CacheDir: dir})
		x.Replace(small())
		return x
	}
	first := start().Select(context.Background(), retrieve.Embedding, "weather in Oslo", 3, nil)
	if n := server.Texts.Load(); n != 7 {
		t.Fatalf("first start embedded %d texts, want 7", n)
	}
	second := start().Select(context.Background(), retrieve.Embedding, "weather in Oslo", 3, nil)
	if n := server.Texts.Load() - 7; n != 1 {
		t.Errorf("restart embedded %d texts, want only the query", n)
	}
	if !slices.Equal(first.Names(), second.Names()) || first.Tools[0].Score != second.Tools[0].Score {
		t.Errorf("cached vectors rank differently: %+v vs %+v", first.Tools, second.Tools)
	}
}

func TestParseRetriever(t *testing.T) {
	for _, r := range retrieve.Retrievers() {
		if got, err := retrieve.ParseRetriever(string(r)); got != r || err != nil {
			t.Errorf("%s: %v %v", r, got, err)
		}
	}
	if _, err := retrieve.ParseRetriever("vector"); err == nil || !strings.Contains(err.Error(), "lexical, embedding or hybrid") {
		t.Errorf("vector: %v", err)
	}
}

func TestEmbedErrorUnwraps(t *testing.T) {
	cause := errors.New("boom")
	e := &retrieve.EmbedError{Problem: "it failed", Do: "restart it", Err: cause}
	if !errors.Is(e, cause) || e.Error() != "it failed: restart it" {
		t.Errorf("%v", e)
	}
}
