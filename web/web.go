// Package web holds the playground's page: templ components for the HTML
// and plain JavaScript and CSS, embedded in the binary. Nothing is fetched
// from a CDN, so the page works offline.
package web

import "embed"

// Static holds the page's scripts and styles, served under /static/.
//
//go:embed static
var Static embed.FS

// PageData is what the server knows when it renders the page.
type PageData struct {
	Backend string // "ollama" or "demo"
	Model   string
	Mode    string
	Demo    bool // the page must say so, always
	Tools   []ToolInfo
	// Settings the run form starts with.
	MaxRounds   int
	ToolDelayMS int
	Think       bool
}

// ToolInfo describes a tool for the side panel.
type ToolInfo struct {
	Name        string
	Description string
	Source      string // "builtin" or "mcp:<server>"
	Parameters  string // the JSON Schema, indented
}
