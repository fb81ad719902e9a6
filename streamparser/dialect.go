package streamparser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Dialect is a way of writing tool calls in reply text. A model writes the
// one it was trained on, or the one its system prompt describes.
//
// A dialect is one value that carries everything the program needs to
// know of it: the markers the parser reads, the paragraph of the system
// prompt that teaches it ([Dialect.Instructions]), how a model writes a
// call in it ([Dialect.WriteCalls]) and the marks a screen highlights
// ([Dialect.Describe]). Each dialect's file defines its number and its
// syntax, so a new dialect is one file and its tests.
type Dialect uint8

// syntaxes holds every dialect's syntax, indexed by Dialect: each
// dialect's file adds its own with define.
var syntaxes []*syntax

// define makes x the syntax of d. It runs from init, and a number given
// twice is a programming error.
func define(d Dialect, x *syntax) {
	for len(syntaxes) <= int(d) {
		syntaxes = append(syntaxes, nil)
	}
	if syntaxes[d] != nil {
		panic(fmt.Sprintf("streamparser: %s and %s are both Dialect(%d)", syntaxes[d].name, x.name, d))
	}
	x.prepare()
	syntaxes[d] = x
}

// Dialects lists every dialect, the default first.
func Dialects() []Dialect {
	ds := make([]Dialect, len(syntaxes))
	for i := range ds {
		ds[i] = Dialect(i)
	}
	return ds
}

// DialectNames lists every dialect's name, the default first.
func DialectNames() []string {
	names := make([]string, len(syntaxes))
	for i, x := range syntaxes {
		names[i] = x.name
	}
	return names
}

// String returns the dialect's name, as ParseDialect reads it.
func (d Dialect) String() string {
	if int(d) < len(syntaxes) {
		return syntaxes[d].name
	}
	return fmt.Sprintf("Dialect(%d)", d)
}

// ParseDialect returns the dialect with the given name, or one of its
// aliases, ignoring case.
func ParseDialect(name string) (Dialect, error) {
	for i, x := range syntaxes {
		if strings.EqualFold(name, x.name) || slices.ContainsFunc(x.aliases, func(a string) bool { return strings.EqualFold(name, a) }) {
			return Dialect(i), nil
		}
	}
	return 0, fmt.Errorf("unknown tool-call dialect %q: use one of %s", name, strings.Join(DialectNames(), ", "))
}

// Instructions returns the paragraph of a system prompt, placed after the
// tools, that teaches a model to write calls in d.
func (d Dialect) Instructions() string { return d.syntax().instructions }

// Marker returns the text that opens a call in d, as a model writes it.
// Two dialects may share one: Qwen3Coder's is Hermes's.
func (d Dialect) Marker() string { return d.syntax().opens[0] }

// syntax is d's syntax. The methods of a Dialect trust d as they trust a
// slice index: a Dialect that ParseDialect, Dialects or a constant gave is
// always known, and only a conversion from a number can make another.
// Options, which a caller fills, is checked with known.
func (d Dialect) syntax() *syntax {
	x, err := d.known()
	if err != nil {
		panic("streamparser: " + err.Error())
	}
	return x
}

// known is d's syntax, or an error when d is not one of Dialects().
func (d Dialect) known() (*syntax, error) {
	if int(d) >= len(syntaxes) {
		return nil, fmt.Errorf("unknown %v: use one of %s", d, strings.Join(DialectNames(), ", "))
	}
	return syntaxes[d], nil
}

// syntax is what the parser needs to know of a dialect. A call either ends
// at a closing tag, or where the brackets it opens balance: then the bytes
// between the marker and the first bracket are its prelude.
type syntax struct {
	name string
	// aliases are other names ParseDialect reads, such as a model's.
	aliases []string
	// opens are the markers that open a call in reply text.
	opens []string
	// close is the tag that ends a call; empty when brackets end it.
	close string
	// body is the bracket that opens a bracket-ended call's body.
	body byte
	// lang is the language of calls. In Python, strings take either
	// quote, parentheses nest, a tool name comes before the body, and a
	// known tool's bare name( opens a call.
	lang lang
	// list: the body is a list of calls, split at its top-level commas.
	list bool
	// argsTag, in a list dialect, lets a name, the tag and a JSON object
	// follow the marker instead of a list: Mistral's name[ARGS]{…}.
	argsTag string
	// seps are the bytes that may separate a call from the next, as in
	// "a(x=1); b(y=2)": with the spaces around them, they belong to the
	// next call's Text.
	seps string
	// bareObject: a '{' at the start of the reply opens a call.
	bareObject bool
	// shape tells the model how to write a call; reasons end with it.
	shape string
	// noBody says what is wrong when no body follows a marker; the
	// reason goes on with shape.
	noBody string
	// argsKey is the arguments' field in the JSON dialects, for reasons
	// and for writing calls.
	argsKey string
	// instructions is the paragraph of the system prompt that teaches the
	// dialect, after the tools, word for word as models learnt it.
	instructions string
	// lead and trail surround what a model writes after the marker: one
	// call's body, or in a list all of them, joined by ", ".
	lead, trail string

	// Set by init: the tags that matter in reply text and in thinking,
	// their first bytes for a fast scan, the tag that ends a call, if
	// any, and the bytes that matter in a call outside strings: the
	// closing tag's first, or the brackets (and a list's comma).
	textTags    []string
	firsts      byteSet
	thinkTags   []string
	thinkFirsts byteSet
	closeTags   []string
	stops       byteSet
}

// prepare sets the fields that follow from the others.
func (x *syntax) prepare() {
	x.textTags = append([]string{thinkOpen}, x.opens...)
	x.firsts = firstBytes(x.textTags)
	x.thinkTags = append([]string{thinkClose}, x.opens...)
	x.thinkFirsts = firstBytes(x.thinkTags)
	if x.close != "" {
		x.closeTags = []string{x.close}
		x.stops[x.close[0]] = true
		return
	}
	for c, d := range bracketDepth[x.lang] {
		if d != 0 {
			x.stops[c] = true
		}
	}
	// A Pythonic list of calls is split at its commas too.
	x.stops[','] = x.list || x.lang == pythonLang
}

// parse reads a closed call's Raw; schemas are the tools' parameter
// schemas, by which XML values are typed.
func (x *syntax) parse(raw string, schemas map[string]json.RawMessage) (name string, args json.RawMessage, reason string) {
	switch x.lang {
	case pythonLang:
		return x.parsePython(raw)
	case xmlLang:
		return x.parseXML(raw, schemas)
	}
	if name, body, ok := x.namedCall(raw); ok {
		return x.parseNamed(name, body)
	}
	return x.parseJSON(raw)
}
