package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/toolscope/toolscope/frontend/web"
)

// Access decides who may use the server beyond the Host and Origin checks.
// The zero value asks for no token, as toolscope does on loopback.
type Access struct {
	// Tokens, when set, must come with every request, and say what it may
	// do. cmd sets them when the server listens beyond loopback, or
	// with --auth, unless --no-auth.
	Tokens Tokens
	// AllowHosts are host names, such as mylaptop.local, that the Host
	// header may carry besides localhost and IP addresses.
	AllowHosts []string
	// ShareHosts are the host:port pairs at which other machines reach
	// the server, best first (see ReachableAt); the share panel's viewer
	// link uses the first unless the page was opened at a reachable one.
	ShareHosts []string
}

// Tokens are the two secrets of one start. A request shows one as
// `Authorization: Bearer <token>`, as ?token=<token>, or in the cookie
// that a valid ?token= sets, so that the page's own fetches and
// EventSource carry it.
type Tokens struct {
	// Operator may do everything: start and stop runs, read MCP servers'
	// command lines and logs.
	Operator string
	// Viewer may only watch: the page, runs and their events, health and
	// the tool list.
	Viewer string
}

// NewTokens returns fresh random tokens: 26 characters of base32, 130
// bits each, safe in a URL and readable aloud.
func NewTokens() Tokens {
	return Tokens{Operator: rand.Text(), Viewer: rand.Text()}
}

func (t Tokens) required() bool { return t.Operator != "" }

// role is what a request may do.
type role int

const (
	nobody role = iota
	viewer
	operator
)

// roleOf judges a presented token, comparing in constant time with both
// tokens so that neither the timing nor the order of the checks tells an
// attacker how close a guess came. Hashing first makes the lengths equal.
func (t Tokens) roleOf(token string) role {
	got := sha256.Sum256([]byte(token))
	op := sha256.Sum256([]byte(t.Operator))
	vw := sha256.Sum256([]byte(t.Viewer))
	isOperator := subtle.ConstantTimeCompare(got[:], op[:])
	isViewer := subtle.ConstantTimeCompare(got[:], vw[:])
	switch {
	case token == "":
		return nobody
	case isOperator == 1:
		return operator
	case isViewer == 1:
		return viewer
	}
	return nobody
}

// roleCookies keep the token of a ?token= link, one cookie for each role,
// so that a teacher who opens the viewer link in the same browser keeps
// the operator's. HttpOnly keeps scripts, model output included, from
// reading them; SameSite=Strict keeps other sites' requests from carrying
// them.
var roleCookies = []struct {
	role role
	name string
}{{operator, "toolscope_operator"}, {viewer, "toolscope_viewer"}}

// roleKey is where authorize leaves the request's role in Locals.
const roleKey = "toolscope.role"

// authorize lets a request through when it carries a token that allows
// it. A ?token= that is valid is kept in a cookie. A viewer may only read
// what the page shows while watching. A valid token, of either role, makes
// the connection trusted (see admission); without one it is closed after
// the answer.
func (s *Server) authorize(c *fiber.Ctx) error {
	tokens := s.cfg.Access.Tokens
	if !tokens.required() {
		trustConnection(c)
		return c.Next()
	}
	r, query := tokens.judge(&c.Request().Header)
	if r == nobody {
		return refuseToken(c)
	}
	trustConnection(c)
	if r == viewer && !viewerMay(c.Method(), c.Path()) {
		return errViewerWatches
	}
	for _, rc := range roleCookies {
		if query != "" && rc.role == r {
			c.Cookie(&fiber.Cookie{Name: rc.name, Value: query, Path: "/", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode})
		}
	}
	c.Locals(roleKey, r)
	return c.Next()
}

// roleOfRequest is what authorize found the request may do; every request
// is an operator when no token is asked for.
func roleOfRequest(c *fiber.Ctx) role {
	if r, ok := c.Locals(roleKey).(role); ok {
		return r
	}
	return operator
}

var errViewerWatches = fiber.NewError(fiber.StatusForbidden,
	"the viewer link can only watch runs: starting or stopping them, and MCP servers' details, need the operator's link")

// requestRole is what a request may do, judged from its headers alone.
func (s *Server) requestRole(h *fasthttp.RequestHeader) role {
	if !s.cfg.Access.Tokens.required() {
		return operator
	}
	r, _ := s.cfg.Access.Tokens.judge(h)
	return r
}

// judge finds what a request may do from the token it shows: the
// Authorization header, else ?token= (returned as query, to be kept),
// else the cookies, the operator's first. A header or a link is judged
// alone, so that a link opened now wins over the cookies of an earlier
// start. The headers are enough: a request is judged as soon as they are
// read, before its body (see bodyLimit).
func (t Tokens) judge(h *fasthttp.RequestHeader) (r role, query string) {
	if auth := string(h.Peek(fiber.HeaderAuthorization)); auth != "" {
		scheme, token, _ := strings.Cut(auth, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return nobody, ""
		}
		return t.roleOf(strings.TrimSpace(token)), ""
	}
	uri := fasthttp.AcquireURI()
	defer fasthttp.ReleaseURI(uri)
	if uri.Parse(nil, h.RequestURI()) == nil {
		if q := string(uri.QueryArgs().Peek("token")); q != "" {
			return t.roleOf(q), q
		}
	}
	for _, rc := range roleCookies {
		if t.roleOf(string(h.Cookie(rc.name))) == rc.role {
			return rc.role, ""
		}
	}
	return nobody, ""
}

// viewerMay lists what a viewer may read: the page and its files, and what
// the page reads while watching. Anything else, including what is added
// later, is refused. Paths are compared exactly as the client sent them,
// which is also what the router matches, so another spelling of an allowed
// path can only be refused, never let through to another route.
func viewerMay(method, path string) bool {
	if method != fiber.MethodGet && method != fiber.MethodHead {
		return false
	}
	switch path {
	case "/", "/api/health", "/api/tools", "/api/runs/latest":
		return true
	}
	if strings.HasPrefix(path, "/static/") {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/api/runs/")
	if !ok {
		return false
	}
	id, tail, nested := strings.Cut(rest, "/")
	return id != "" && (!nested || tail == "events")
}

// refuseToken answers a request without a valid token: JSON for programs,
// a page that says what to open for a browser.
func refuseToken(c *fiber.Ctx) error {
	c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="toolscope"`)
	if wantsHTML(c) {
		return sendNotice(c, fiber.StatusUnauthorized, web.Notice{
			Title: "This toolscope needs its link",
			Text: "Open the link you were given: it ends in ?token=…. If it worked before, toolscope has been " +
				"restarted, which makes new links: ask for the new one.",
		})
	}
	return fiber.NewError(fiber.StatusUnauthorized,
		"a valid token is needed: send Authorization: Bearer <token>, or open a link toolscope printed when it started (it ends in ?token=…); tokens are new at each start")
}

// Exposed reports whether a listener on addr can be reached from other
// machines, so that the server must ask for tokens.
func Exposed(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return !ok || !tcp.IP.IsLoopback()
}
