package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/tools/mcp"
)

// everythingSpec is the public reference server, server-everything, as
// npm installs it at the root of the repository; the test is skipped
// without it.
func everythingSpec(t *testing.T) mcp.ServerSpec {
	t.Helper()
	bin, err := filepath.Abs("../../node_modules/.bin/mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("server-everything is not installed; install it with `npm install --no-save @modelcontextprotocol/server-everything` at the root of the repository")
	}
	return mcp.ServerSpec{Name: "everything", Command: bin, Args: []string{"stdio"}}
}

// TestResourcesAndPromptsInThePanel lists server-everything's resources
// and prompts under it in the side panel, opens a resource, attaches one
// to a request (the round's input holds it), uses a prompt as the next
// request, and sees the resource links of a tool's result drawn as such.
func TestResourcesAndPromptsInThePanel(t *testing.T) {
	t.Parallel()
	spec := everythingSpec(t)
	srv := ollamatest.New(t)
	srv.Reply(
		ollamatest.Reply{Text: "Noted."},
		ollamatest.Reply{Text: "<tool_call>\n{\"name\": \"get-resource-links\", \"arguments\": {\"count\": 2}}\n</tool_call>"},
		ollamatest.Reply{Text: "Here are two resources."},
	)
	s := ollamaModel(srv.Host(), "qwen3:4b")
	s.MCP = []mcp.ServerSpec{spec}
	p := open(t, serve(t, s))

	const box = `document.querySelector('.mcp-catalog[data-server="everything"]')`
	p.waitFor("the resources and prompts", box+`?.hidden === false && `+box+`.querySelectorAll('.resource').length > 0`)
	resources := eval[int](p, box+`.querySelectorAll('.resource-list .resource:not(.is-template)').length`)
	templates := eval[int](p, box+`.querySelectorAll('.resource.is-template').length`)
	prompts := eval[[]string](p, `[...`+box+`.querySelectorAll('.prompt .resource-name')].map(n => n.textContent)`)
	if resources == 0 || templates == 0 {
		t.Errorf("the panel lists %d resources and %d templates of server-everything", resources, templates)
	}
	contains(t, "the prompts listed", eval[string](p, `[...`+box+`.querySelectorAll('.prompt')].map(n => n.dataset.name).join(' ')`), "args-prompt")
	if len(prompts) < 3 {
		t.Errorf("prompts = %v", prompts)
	}
	p.do(chromedp.EmulateViewport(1366, 768), chromedp.Evaluate[chromedp.Void](box+`.querySelector('.mcp-resources').open = true; `+box+`.querySelector('.mcp-prompts').open = true; document.querySelector('.tool-group[data-source="mcp:everything"] .mcp-server').scrollIntoView()`))
	p.screenshot("resources-panel-1366x768")
	p.do(chromedp.EmulateViewport(1920, 1080))
	p.screenshot("resources-panel-1920x1080")

	// The first resource opens in the dialog, read from the server.
	uri := eval[string](p, box+`.querySelector('.resource:not(.is-template) .resource-uri').textContent`)
	name := eval[string](p, box+`.querySelector('.resource:not(.is-template) .resource-name').textContent`)
	p.do(chromedp.Evaluate[chromedp.Void](box + `.querySelector('.resource:not(.is-template) button').click()`))
	p.waitFor("the resource read", `document.getElementById('resource-dialog').open && document.querySelector('#resource-body .resource-content')`)
	contains(t, "the resource dialog", eval[string](p, `document.getElementById('resource-note').textContent`), uri)
	p.screenshot("resource-dialog")
	// Attached from the dialog, it waits above the composer.
	p.do(chromedp.Click(chromedp.ID("resource-attach")))
	p.waitFor("the attachment", `document.querySelectorAll('#attachments .attachment').length === 1 && !document.getElementById('attachments').hidden`)
	p.send("What does it say?")
	p.waitEnd(1)
	turn := p.turns()[0]
	send := step(t, turn.Rounds[0], "send")
	contains(t, "the round's input", send.Body, `<resource server="everything" uri="`+uri+`"`)
	contains(t, "the turn's attachments", eval[string](p, `document.querySelector('#chat .turn .attachments.is-sent')?.textContent ?? ''`), name)
	if n := eval[int](p, `document.querySelectorAll('#attachments .attachment').length`); n != 0 {
		t.Errorf("%d resources still attached after the request went", n)
	}

	// A prompt with arguments: its form, then its messages as the request.
	const argsPrompt = box + `.querySelector('.prompt[data-name="args-prompt"]')`
	p.do(chromedp.Evaluate[chromedp.Void](argsPrompt + `.querySelector('.resource-head button').click()`))
	p.do(chromedp.Evaluate[chromedp.Void](argsPrompt + `.querySelector('input[name=city]').value = 'Lyon'`))
	p.do(chromedp.Evaluate[chromedp.Void](argsPrompt + `.querySelector('form').requestSubmit()`))
	p.waitFor("the prompt in the composer", `document.getElementById('message').value.includes('Lyon')`)
	p.do(chromedp.Focus(chromedp.ID("message")), enter)
	p.waitEnd(2)
	turn = p.turns()[1]
	contains(t, "the prompt's request", turn.Message, "Lyon")

	// The tool's resource links are chips that open the resource.
	p.waitFor("the resource links", `document.querySelectorAll('#chat .turn:nth-of-type(2) .result-parts .resource-link').length === 2`)
	exec := step(t, turn.Rounds[0], "exec")
	contains(t, "the tool result", exec.Body, "[resource link: ")
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('.result-parts .resource-link').scrollIntoView({block: 'center'})`))
	p.screenshot("resource-links")
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('.result-parts .resource-link button').click()`))
	p.waitFor("the linked resource read", `document.getElementById('resource-dialog').open && document.querySelector('#resource-body .resource-content')`)
}
