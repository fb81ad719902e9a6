// Command gen writes the catalogue (tools/catalogue/catalogue.json, which
// tools/retrieve/testdata links to) and the labelled requests
// (tools/retrieve/testdata/requests.json), from
// the domain templates below: services like the MCP servers people
// connect (GitHub, Slack, a file system, calendars, payments, …), each with
// the entities it manages and the usual actions on them, named in the
// styles real servers use (snake_case, kebab-case, camelCase). Requests
// are worded the way a person asks, with other words than the tool's
// where English has them. Run it from the repository root:
//
//	go run ./tools/retrieve/testdata/gen
package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"strings"
)

type field struct{ name, typ, desc string }

type entity struct {
	one, many, about string
	syn              []string // what people call it
	fields           []field
	example          string // an identifier, for requests
}

type service struct {
	id, title, style string // style: snake, kebab or camel
	entities         []string
}

// parseEntity reads "one|many|about|syn,syn|example|name:type:desc;…".
func parseEntity(s string) entity {
	p := strings.Split(s, "|")
	e := entity{one: p[0], many: p[1], about: p[2], syn: strings.Split(p[3], ","), example: p[4]}
	for _, f := range strings.Split(p[5], ";") {
		q := strings.SplitN(f, ":", 3)
		e.fields = append(e.fields, field{q[0], q[1], q[2]})
	}
	return e
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type request struct {
	Query string `json:"query"`
	Tool  string `json:"tool"`
}

func main() {
	entities := map[string]entity{}
	for _, s := range entitySpecs {
		e := parseEntity(s)
		entities[e.one] = e
	}
	var cat []tool
	var reqs []request
	for _, svc := range services {
		for _, en := range svc.entities {
			e, ok := entities[en]
			if !ok {
				log.Fatalf("no entity %q", en)
			}
			for _, a := range actions {
				t := makeTool(svc, e, a)
				cat = append(cat, t)
				if pick(t.Name, 5) {
					reqs = append(reqs, request{makeRequest(svc, e, a, t.Name), t.Name})
				}
			}
		}
	}
	for _, sp := range specials {
		cat = append(cat, tool{sp.name, sp.desc, schema(sp.params, sp.required)})
		for _, q := range sp.requests {
			reqs = append(reqs, request{q, sp.name})
		}
	}
	seen := map[string]bool{}
	for _, t := range cat {
		if seen[t.Name] {
			log.Fatalf("two tools named %s", t.Name)
		}
		seen[t.Name] = true
	}
	write("tools/catalogue/catalogue.json", cat) // tools/retrieve/testdata links to it
	write("tools/retrieve/testdata/requests.json", reqs)
	fmt.Printf("%d tools, %d requests\n", len(cat), len(reqs))
}

func write(path string, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// pick chooses about one in n names, the same ones at every run.
func pick(name string, n uint32) bool { return hash(name)%n == 0 }

// choose picks one of xs for key, the same at every run.
func choose(key string, xs []string) string { return xs[hash(key)%uint32(len(xs))] }

var actions = []string{"list", "get", "create", "update", "delete", "search"}

func toolName(svc service, verb, noun string) string {
	ws := append([]string{svc.id, verb}, strings.Fields(strings.ReplaceAll(noun, "_", " "))...)
	switch svc.style {
	case "kebab":
		return strings.Join(ws, "-")
	case "camel":
		for i := 1; i < len(ws); i++ {
			ws[i] = strings.ToUpper(ws[i][:1]) + ws[i][1:]
		}
		return strings.Join(ws, "")
	}
	return strings.Join(ws, "_")
}

func makeTool(svc service, e entity, a string) tool {
	id := field{e.one + "_id", "string", fmt.Sprintf("ID of the %s, e.g. %q", human(e.one), e.example)}
	var params []field
	var required []string
	var desc string
	noun := e.one
	switch a {
	case "list":
		noun = e.many
		desc = fmt.Sprintf("List %s in %s, newest first. %s Use the cursor from a previous page to read on.", human(e.many), svc.title, capital(e.about))
		params = []field{{"limit", "integer", "Most results to return, 1 to 100 (default 20)"}, {"cursor", "string", "Cursor from the previous page"}}
	case "get":
		desc = fmt.Sprintf("Get one %s from %s by ID, with all its fields. %s", human(e.one), svc.title, capital(e.about))
		params, required = []field{id}, []string{id.name}
	case "create":
		desc = fmt.Sprintf("Create a new %s in %s. %s Returns the new %s's ID.", human(e.one), svc.title, capital(e.about), human(e.one))
		params, required = e.fields, []string{e.fields[0].name}
	case "update":
		desc = fmt.Sprintf("Update an existing %s in %s. Only the fields given change.", human(e.one), svc.title)
		params, required = append([]field{id}, e.fields...), []string{id.name}
	case "delete":
		desc = fmt.Sprintf("Delete a %s from %s permanently. This cannot be undone.", human(e.one), svc.title)
		params, required = []field{id}, []string{id.name}
	case "search":
		noun = e.many
		desc = fmt.Sprintf("Search %s in %s by keyword; matches %s.", human(e.many), svc.title, fieldList(e))
		params, required = []field{{"query", "string", "Words to look for"}, {"limit", "integer", "Most results to return"}}, []string{"query"}
	}
	return tool{toolName(svc, a, noun), desc, schema(params, required)}
}

func human(s string) string { return strings.ReplaceAll(s, "_", " ") }

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func fieldList(e entity) string {
	var names []string
	for _, f := range e.fields {
		if f.typ == "string" {
			names = append(names, human(f.name))
		}
	}
	return strings.Join(names, ", ")
}

func schema(params []field, required []string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i, f := range params {
		if i > 0 {
			b.WriteString(",")
		}
		desc, _ := json.Marshal(f.desc)
		item := ""
		if f.typ == "array" {
			item = `,"items":{"type":"string"}`
		}
		fmt.Fprintf(&b, `%q:{"type":%q,"description":%s%s}`, f.name, f.typ, desc, item)
	}
	b.WriteString("}")
	if len(required) > 0 {
		req, _ := json.Marshal(required)
		b.WriteString(`,"required":` + string(req))
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

// makeRequest words what a person would ask for when a tool is the
// answer, preferring the words people use over the tool's own.
func makeRequest(svc service, e entity, a, name string) string {
	syn := choose(name+"syn", e.syn)
	many := syn + "s"
	if strings.HasSuffix(syn, "s") || strings.HasSuffix(syn, "sh") || strings.HasSuffix(syn, "ch") {
		many = syn + "es"
	}
	where := choose(name+"where", []string{"in " + svc.title, "on " + svc.title, "in our " + svc.title})
	var forms []string
	switch a {
	case "list":
		forms = []string{"show me all the %[2]s %[3]s", "what %[2]s do we have %[3]s?", "give me the latest %[2]s %[3]s"}
	case "get":
		forms = []string{"look up %[1]s %[4]s %[3]s", "pull up the details of %[1]s %[4]s %[3]s", "what does %[1]s %[4]s say %[3]s?"}
	case "create":
		forms = []string{"make a new %[1]s %[3]s", "add a %[1]s %[3]s for the launch", "set up a fresh %[1]s %[3]s"}
	case "update":
		forms = []string{"change the %[5]s of %[1]s %[4]s %[3]s", "edit %[1]s %[4]s %[3]s and fix its %[5]s", "rename %[1]s %[4]s %[3]s"}
	case "delete":
		forms = []string{"remove %[1]s %[4]s %[3]s", "get rid of %[1]s %[4]s %[3]s", "erase %[1]s %[4]s %[3]s for good"}
	case "search":
		forms = []string{"find %[2]s %[3]s that mention onboarding", "which %[2]s %[3]s talk about the outage?", "look for %[2]s about billing %[3]s"}
	}
	return fmt.Sprintf(choose(name+"form", forms), syn, many, where, e.example, human(e.fields[0].name))
}
