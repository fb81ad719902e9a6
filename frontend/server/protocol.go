package server

import (
	"mime"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// contentSecurityPolicy allows what the page uses, all from toolscope
// itself: its scripts and style sheet under /static (no inline script or
// style attribute), fetch and EventSource to the API, images such as the
// share QR code, and the empty data: favicon. No page may frame it.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// setSecurityHeaders marks a response so that browsers neither frame the
// page, nor guess content types, nor send toolscope's URLs, tokens
// included, to other sites as a Referer.
func setSecurityHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, contentSecurityPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
}

// securityHeaders sets the security headers on every routed response;
// errorHandler sets them on the others.
func securityHeaders(c *fiber.Ctx) error {
	setSecurityHeaders(c)
	return c.Next()
}

// requireJSON refuses a POST whose body is not declared JSON: a form post
// from another site cannot then pass for an API call, and a script that
// forgot the header hears why.
func requireJSON(c *fiber.Ctx) error {
	if c.Method() != fiber.MethodPost || len(c.Body()) == 0 {
		return c.Next()
	}
	if t, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType)); err != nil || t != fiber.MIMEApplicationJSON {
		return fiber.NewError(fiber.StatusUnsupportedMediaType, "send the body as JSON, with Content-Type: application/json")
	}
	return c.Next()
}

// noRoute answers what no route took: 405 with the methods the path
// allows, or 404.
func (s *Server) noRoute(c *fiber.Ctx) error {
	if allow := s.allowed(c.Path()); len(allow) > 0 {
		c.Set(fiber.HeaderAllow, strings.Join(allow, ", "))
		return fiber.NewError(fiber.StatusMethodNotAllowed, c.Method()+" is not allowed on "+c.Path()+": use "+strings.Join(allow, " or "))
	}
	return fiber.NewError(fiber.StatusNotFound, "no such page: "+c.Path())
}

// allowed lists the methods that routes take on path.
func (s *Server) allowed(path string) []string {
	var methods []string
	for _, r := range s.app.GetRoutes(true) {
		if matches(r.Path, path) && !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	return methods
}

// matches reports whether path fits a route pattern whose ":name"
// segments stand for one segment each.
func matches(pattern, path string) bool {
	want, got := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i, w := range want {
		if w != got[i] && !(strings.HasPrefix(w, ":") && got[i] != "") {
			return false
		}
	}
	return true
}
