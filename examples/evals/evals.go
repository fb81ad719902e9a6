// Package evals holds the bundled eval suites, embedded so that the
// binary carries them: the page's Evals view offers them by name
// (GET /api/evals/suites), and toolscope eval reads them as files.
package evals

import "embed"

// Files are the bundled suites, *.yaml at the top.
//
//go:embed *.yaml
var Files embed.FS
