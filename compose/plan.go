package compose

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/tools/mcp"
)

// planned is every server placed, with services and variables named.
type planned struct {
	placed    []placed
	servers   []Server
	variables []Variable
}

// The services every file has, whose names a server's cannot take.
var fixedServices = []string{"toolscope", "ollama", "ollama-pull", "vllm"}

func plan(specs []mcp.ServerSpec) *planned {
	p := &planned{}
	taken := map[string]bool{}
	for _, name := range fixedServices {
		taken[name] = true
	}
	for _, spec := range specs {
		s := place(spec)
		if s.Placement == InContainer {
			s.Service = unique(serviceName(s.Name), "-", taken)
			s.Image = s.runtime.image
			if s.Image == "" {
				s.Image = toolscopeImage
			}
			s.url = "http://" + s.Service + ":" + mcpPort + "/mcp"
		}
		p.placed = append(p.placed, s)
	}
	p.nameVariables()
	for _, s := range p.placed {
		p.servers = append(p.servers, s.Server)
	}
	return p
}

// unique returns name, or name-2, name-3 … (with the separator sep) when
// taken, and takes it.
func unique(name, sep string, taken map[string]bool) string {
	candidate := name
	for n := 2; taken[candidate]; n++ {
		candidate = name + sep + strconv.Itoa(n)
	}
	taken[candidate] = true
	return candidate
}

// nameVariables names the variable of each value the file references. An
// env variable is referenced by its own name, GITHUB_TOKEN as
// ${GITHUB_TOKEN}, unless two servers give it different values: then each
// is prefixed with its service, as a remote server's header always is
// (REMOTE_AUTHORIZATION), since "Authorization" says nothing of whose. A
// secret of the arguments or URL is named after the service (or remote
// server) and the part (POSTGRES_PASSWORD, REMOTE_API_KEY), with _2, _3 …
// when another variable has that name already.
func (p *planned) nameVariables() {
	values := map[string]map[string]bool{} // an env key → the values servers give it
	for _, s := range p.placed {
		if s.Placement != InContainer {
			continue
		}
		for key, value := range s.spec.Env {
			if values[key] == nil {
				values[key] = map[string]bool{}
			}
			values[key][value] = true
		}
	}
	taken := map[string]bool{}
	for i := range p.placed {
		s := &p.placed[i]
		for key := range s.refs {
			s.refs[key] = variableName(key)
			if s.Placement == Remote || len(values[key]) > 1 {
				s.refs[key] = variableName(s.owner()) + "_" + variableName(key)
			}
			taken[s.refs[key]] = true
		}
		for _, v := range s.argVariables {
			taken[v.Name] = true
		}
	}
	for i := range p.placed {
		s := &p.placed[i]
		if s.Placement != Refused {
			for j := range s.secrets {
				s.secrets[j].variable = unique(variableName(s.owner())+"_"+variableName(strings.TrimLeft(s.secrets[j].part, "-")), "_", taken)
			}
		}
		s.reference()
		if s.Placement == Refused {
			continue
		}
		p.variables = append(p.variables, s.argVariables...)
		for _, sec := range s.secrets {
			p.variables = append(p.variables, Variable{Name: sec.variable, Server: s.Name, For: sec.what})
		}
		kind := "env"
		if s.Placement == Remote {
			kind = "header"
		}
		for _, key := range slices.Sorted(maps.Keys(s.refs)) {
			p.variables = append(p.variables, Variable{Name: s.refs[key], Server: s.Name, For: kind + " " + key})
		}
	}
}

// owner names the server's variables: its service, or its own name when it
// has none.
func (s *placed) owner() string {
	if s.Service != "" {
		return s.Service
	}
	return s.Name
}
