package mcp

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Besides tools, a server may offer resources (data a client reads by
// URI, and templates of such URIs) and prompts (messages a user picks,
// with arguments). toolscope lists both when a server connects and again
// whenever the server announces a change (notifications/resources/
// list_changed, notifications/prompts/list_changed); a front end lists
// them, reads a resource (resources/read) or gets a prompt (prompts/get)
// when the user asks. Neither reaches the model by itself: a resource is
// read into a request only when the user attaches it (AttachedResource),
// and a prompt's messages become a request only when the user sends them
// (PromptRequest).

// catalog is what a server offers besides tools, as it last listed it.
type catalog struct {
	resourcesDue, promptsDue chan struct{} // a list_changed arrived
	// listed is closed once the first listing, after the server
	// connected, has ended, whether it worked or not.
	listed chan struct{}

	mu        sync.Mutex
	resources []*sdk.Resource
	templates []*sdk.ResourceTemplate
	prompts   []*sdk.Prompt
	// Why the last listing failed, "" when it did not.
	resourcesErr, promptsErr string
}

func newCatalog() *catalog {
	return &catalog{resourcesDue: make(chan struct{}, 1), promptsDue: make(chan struct{}, 1), listed: make(chan struct{})}
}

// ServerResources is what one server offers to read.
type ServerResources struct {
	Server string `json:"server"`
	State  State  `json:"state"`
	// Offered: the server declared the resources capability. A server
	// that did not has none to list.
	Offered   bool                    `json:"offered"`
	Resources []*sdk.Resource         `json:"resources"`
	Templates []*sdk.ResourceTemplate `json:"templates"`
	// Error says why listing them failed; the lists are then the last
	// that succeeded.
	Error string `json:"error,omitempty"`
	// Listing: the first listing, which runs once the server is ready,
	// has not ended yet; the lists are empty until it has.
	Listing bool `json:"listing,omitempty"`
}

// ErrNoServer is the error of a server name that the Hub does not know.
var ErrNoServer = errors.New("no MCP server")

// ErrUnavailable is the error of a request to a server that is not
// connected: it failed, stopped or was closed; the error says why.
var ErrUnavailable = errors.New("MCP server not connected")

// kindOf gives an error in its own words the kind of a sentinel error,
// for errors.Is, without the sentinel's text.
type kindOf struct {
	error
	kind error
}

func (k kindOf) Is(target error) bool { return target == k.kind }

// ready returns the session of a ready server, or why it is not.
func (s *server) ready() (*sdk.ClientSession, error) {
	session, err := s.usable()
	if err != nil {
		return nil, kindOf{err, ErrUnavailable}
	}
	return session, nil
}

// RefusedError is a server's JSON-RPC error answer to a request toolscope
// sent it on a user's behalf, such as resources/read for a URI it does
// not know.
type RefusedError struct {
	Server, Method string
	Code           int64
	Message        string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("MCP server %q refused %s: %s", e.Server, e.Method, e.Message)
}

// NotFound says the server answered that what was asked for does not
// exist: an unknown resource, or an unknown prompt. Servers answer it
// with the code for invalid parameters (SDKs since SEP-2164), or the
// older -32002.
func (e *RefusedError) NotFound() bool {
	return e.Code == jsonrpc.CodeInvalidParams || e.Code == -32002
}

// server finds a server by name. It reads the servers under h.mu, as
// list does: a sign-in from the page replaces a server's entry.
func (h *Hub) server(name string) (*server, error) {
	servers := h.list()
	names := make([]string, len(servers))
	for i, s := range servers {
		if s.name == name {
			return s, nil
		}
		names[i] = fmt.Sprintf("%q", s.name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w %q: toolscope was started with no MCP servers", ErrNoServer, name)
	}
	return nil, fmt.Errorf("%w %q: the servers are %s", ErrNoServer, name, strings.Join(names, ", "))
}

// pick is the servers that name asks for: one, or every one for "", in
// a list of the caller's own.
func (h *Hub) pick(name string) ([]*server, error) {
	if name == "" {
		return h.list(), nil
	}
	s, err := h.server(name)
	if err != nil {
		return nil, err
	}
	return []*server{s}, nil
}

// Resources lists the resources and resource templates of the server
// named, or of every server for "", in the order of the specs.
func (h *Hub) Resources(name string) ([]ServerResources, error) {
	servers, err := h.pick(name)
	if err != nil {
		return nil, err
	}
	out := make([]ServerResources, len(servers))
	for i, s := range servers {
		out[i] = ServerResources{Server: s.name, State: s.currentState(), Resources: []*sdk.Resource{}, Templates: []*sdk.ResourceTemplate{}}
		if out[i].State != StateReady {
			continue // its resources cannot be read
		}
		caps := s.declared()
		out[i].Offered = caps != nil && caps.Resources != nil
		c := s.catalog
		out[i].Listing = c.firstListing()
		c.mu.Lock()
		out[i].Resources, out[i].Templates, out[i].Error = orEmpty(c.resources), orEmpty(c.templates), c.resourcesErr
		c.mu.Unlock()
	}
	return out, nil
}

func (s *server) currentState() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// orEmpty makes a nil list an empty one, which JSON writes as [].
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return slices.Clone(list)
}

// declared is what the server declared it offers in the handshake; nil
// before it.
func (s *server) declared() *sdk.ServerCapabilities {
	if s.session == nil {
		return nil
	}
	if init := s.session.InitializeResult(); init != nil {
		return init.Capabilities
	}
	return nil
}

// ReadResource reads the resource at uri from the server named
// (resources/read), waiting at most the Hub's Timeout.
func (h *Hub) ReadResource(ctx context.Context, name, uri string) (*sdk.ReadResourceResult, error) {
	if uri == "" {
		return nil, errors.New("no resource URI: name the resource to read")
	}
	s, err := h.server(name)
	if err != nil {
		return nil, err
	}
	session, err := s.ready()
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.requestContext(ctx)
	defer cancel()
	res, err := session.ReadResource(askingRequest(ctx, "resources/read"), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, s.requestError(ctx, "resources/read", err)
	}
	return res, nil
}

// requestContext bounds a request made on a user's behalf by the Hub's
// Timeout and by the connection.
func (s *server) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.opts.Timeout, errCallTimeout)
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// requestError words the failure of a request other than a tool call.
func (s *server) requestError(ctx context.Context, method string, err error) error {
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return &RefusedError{Server: s.name, Method: method, Code: rpcErr.Code, Message: rpcErr.Message}
	case errors.Is(context.Cause(ctx), errCallTimeout):
		return fmt.Errorf("MCP server %q did not answer %s within %s", s.name, method, s.opts.Timeout)
	case s.ctx.Err() != nil || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF):
		return fmt.Errorf("MCP server %q stopped before it answered %s", s.name, method)
	}
	return fmt.Errorf("MCP server %q: %s failed: %w", s.name, method, err)
}

// listResources fetches every page of the server's resources and
// resource templates, if it offers any. A failure is kept for the front
// ends to show, with the lists of the last listing that worked: the
// server's tools do not depend on them.
func (s *server) listResources(ctx context.Context) {
	if caps := s.declared(); caps == nil || caps.Resources == nil {
		return
	}
	resources, err := collect(s.session.Resources(ctx, nil))
	var templates []*sdk.ResourceTemplate
	if err == nil {
		templates, err = collect(s.session.ResourceTemplates(ctx, nil))
	}
	c := s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.resourcesErr = "listing its resources failed: " + s.requestError(ctx, "resources/list", err).Error()
		s.logger.Warn("listing an MCP server's resources failed", "error", err)
		return
	}
	c.resources, c.templates, c.resourcesErr = resources, templates, ""
}

// collect gathers the items of a paginated list, every page of it.
// A server that pages on and on is not listed to the end.
func collect[T any](seq func(yield func(T, error) bool)) ([]T, error) {
	var out []T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		if len(out) == maxListed {
			return nil, fmt.Errorf("it lists more than %d, more than toolscope shows", maxListed)
		}
		out = append(out, item)
	}
	return out, nil
}

// maxListed bounds a server's resources, templates or prompts.
const maxListed = 10_000

// resourcesChanged and promptsChanged handle the list_changed
// notifications: refreshCatalog lists again, off the SDK's one handler
// goroutine, as toolsChanged does for tools.
func (s *server) resourcesChanged(context.Context, *sdk.ResourceListChangedRequest) {
	due(s.catalog.resourcesDue)
}

func (s *server) promptsChanged(context.Context, *sdk.PromptListChangedRequest) {
	due(s.catalog.promptsDue)
}

func due(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default: // a listing is already due, and will see this change too
	}
}

// refreshCatalog lists the server's resources and prompts once it is
// ready, then again as the server announces changes, until the
// connection ends. Each listing has the Hub's Timeout of its own.
func (s *server) refreshCatalog() {
	s.listWithin(s.listResources)
	s.listWithin(s.listPrompts)
	close(s.catalog.listed)
	for {
		list := s.listResources
		select {
		case <-s.ctx.Done():
			return
		case <-s.catalog.resourcesDue:
		case <-s.catalog.promptsDue:
			list = s.listPrompts
		}
		s.listWithin(list)
	}
}

// listWithin runs list, bounded by the Hub's Timeout and the connection.
func (s *server) listWithin(list func(context.Context)) {
	ctx, cancel := s.requestContext(s.ctx)
	defer cancel()
	list(ctx)
}

// WaitCatalog waits until every ready server has ended the first listing
// of its resources and prompts, which runs once it is ready, or until
// ctx ends. Before, Resources and Prompts report those servers with
// Listing set.
func (h *Hub) WaitCatalog(ctx context.Context) error {
	for _, s := range h.list() {
		if s.currentState() != StateReady {
			continue
		}
		select {
		case <-s.catalog.listed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// firstListing tells whether the first listing is still under way.
func (c *catalog) firstListing() bool {
	select {
	case <-c.listed:
		return false
	default:
		return true
	}
}

// AttachedResource is the text a resource the user attached to a request
// adds to the user's turn, before the request: each content of res in a
// <resource> element naming the server, its URI and its type, text as it
// is and a blob described as a tool result's is ("[blob: image/png, 12
// KB]"), since a model reads text only.
func AttachedResource(server string, res *sdk.ReadResourceResult) string {
	var b strings.Builder
	for i, c := range res.Contents {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, `<resource server="%s" uri="%s"`, attr(server), attr(c.URI))
		if c.MIMEType != "" {
			fmt.Fprintf(&b, ` mimeType="%s"`, attr(c.MIMEType))
		}
		b.WriteString(">\n")
		if c.Blob != nil {
			fmt.Fprintf(&b, "[blob: %s, %s]", MIMEType(c.MIMEType), size(len(c.Blob)))
		} else {
			b.WriteString(strings.TrimSuffix(c.Text, "\n"))
		}
		b.WriteString("\n</resource>")
	}
	return b.String()
}

// attr escapes an attribute's value as XML would.
func attr(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // writing to a Builder does not fail
	return b.String()
}

// MIMEType is a content's type as toolscope words it, "unknown type"
// when the server named none.
func MIMEType(mimeType string) string {
	if mimeType == "" {
		return "unknown type"
	}
	return mimeType
}
