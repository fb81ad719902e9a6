package main

import (
	"flag"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolscope/toolscope/engine"
)

// operands are what a command takes besides its flags: one (a request, a
// file) or none.
type operands struct {
	name string // such as "a request"; "" when the command takes none
	hint string // how to give it, or what to do instead
}

// severalOperands ends the name of operands given one or more times, as
// eval's "one suite or more".
const severalOperands = " or more"

// check says what is wrong with positional, the arguments that are not
// flags, in words that follow the command's name; "" when nothing is.
func (want operands) check(positional []string) string {
	switch {
	case want.name == "" && len(positional) > 0:
		problem := fmt.Sprintf("takes flags only, not %q", positional[0])
		if want.hint != "" {
			problem += ": " + want.hint
		}
		return problem
	case want.name == "":
		return ""
	case len(positional) == 0:
		return fmt.Sprintf("needs %s, %s", want.name, want.hint)
	case len(positional) > 1 && !strings.HasSuffix(want.name, severalOperands):
		return fmt.Sprintf("takes %s, not %d arguments (quote it as one), %s", want.name, len(positional), want.hint)
	}
	return ""
}

// The flag package's errors, which flagProblem rewords.
var (
	unknownFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	badValue    = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (.*)$`)
	noValue     = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
)

// flagProblem words err, from parsing fs, as one line for a person: flags
// with two dashes as -h lists them, an unknown flag with the one it most
// likely meant, a bad value with the values it takes.
func flagProblem(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		problem := "unknown flag " + dashed(m[1])
		if near := nearestFlag(fs, m[1]); near != "" {
			return problem + "; did you mean " + dashed(near) + "?"
		}
		return problem + "; 'toolscope " + fs.Name() + " -h' lists the flags"
	}
	if m := badValue.FindStringSubmatch(msg); m != nil {
		if strings.HasPrefix(m[3], "is ") {
			// Worded as engine's checks word a setting ("is unknown: use
			// …"), it follows the value as theirs do.
			return fmt.Sprintf("%s %s %s", dashed(m[2]), m[1], m[3])
		}
		return fmt.Sprintf("%s %s: %s", dashed(m[2]), m[1], m[3])
	}
	if m := noValue.FindStringSubmatch(msg); m != nil {
		return dashed(m[1]) + " needs a value"
	}
	return msg
}

// dashed is a flag's name as -h lists it: --backend, -v.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// nearestFlag is the flag of fs that name most likely misspells: the one
// it begins, or the nearest within a third of its length in edits; "" when
// none is near.
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestDistance := "", len(name)/3+1
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = 1
		}
		if d < bestDistance {
			best, bestDistance = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b: how many
// letters to insert, delete or change to turn one into the other.
func editDistance(a, b string) int {
	previous := make([]int, len(b)+1)
	for j := range previous {
		previous[j] = j
	}
	for i := 1; i <= len(a); i++ {
		current := make([]int, len(b)+1)
		current[0] = i
		for j := 1; j <= len(b); j++ {
			change := previous[j-1]
			if a[i-1] != b[j-1] {
				change++
			}
			current[j] = min(change, previous[j]+1, current[j-1]+1)
		}
		previous = current
	}
	return previous[len(b)]
}

// warnUnused says which model setting the backend will not use: the demo
// model is scripted, so --model (or $TOOLSCOPE_MODEL) changes nothing.
// A warning, not a refusal: $TOOLSCOPE_MODEL may be set for Ollama while
// a class tries the demo model.
func (c *command) warnUnused() {
	if c.settings.Backend == engine.BackendDemo && c.settings.Model != "" {
		fmt.Fprintf(c.stderr, "toolscope %s: --model %s is ignored: the demo model is scripted and is the only one --backend demo runs; use --backend ollama or openai for %s\n",
			c.fs.Name(), c.settings.Model, c.settings.Model)
	}
}
