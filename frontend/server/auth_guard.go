package server

import (
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/frontend/web"
)

// guard keeps other web pages away from toolscope. A run can call every
// tool the user connected, so a page the user happens to visit must not be
// able to start one (cross-site requests), nor read results by pointing
// its own domain name at this machine (DNS rebinding): only localhost, IP
// addresses and the names the user allowed are answered. Scripts such as
// curl send neither an Origin nor a Sec-Fetch-Site header and pass.
func (s *Server) guard(c *fiber.Ctx) error {
	host := c.Get(fiber.HeaderHost)
	if !s.knownHost(host) {
		return refuseHost(c, host)
	}
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return c.Next()
	}
	if site := c.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return fiber.NewError(fiber.StatusForbidden, "requests from other sites are refused: use toolscope's own page")
	}
	if origin := c.Get(fiber.HeaderOrigin); origin != "" {
		if u, err := url.Parse(origin); err != nil || u.Host != host {
			return fiber.NewError(fiber.StatusForbidden, "requests from other sites are refused: use toolscope's own page")
		}
	}
	return c.Next()
}

// knownHost reports whether a Host header names this machine directly:
// localhost, an IP address, or one of Access.AllowHosts, with or without
// a port.
func (s *Server) knownHost(host string) bool {
	name := hostName(host)
	return name == "localhost" || strings.HasSuffix(name, ".localhost") || net.ParseIP(name) != nil || s.allowedName(name)
}

func (s *Server) allowedName(name string) bool {
	return slices.ContainsFunc(s.cfg.Access.AllowHosts, func(allowed string) bool { return strings.EqualFold(allowed, name) })
}

// hostName is the name in a Host header, without port, brackets or the
// trailing dot of a fully qualified name.
func hostName(host string) string {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	return strings.TrimSuffix(strings.Trim(name, "[]"), ".")
}

// refuseHost answers a request for a host name toolscope was not told
// about. A browser gets a page with the address that does work (the one
// the request came in on) and the flag that would allow the name.
func refuseHost(c *fiber.Ctx, host string) error {
	local := c.Context().LocalAddr().String()
	instead := "http://" + local
	if !wantsHTML(c) {
		return fiber.NewError(fiber.StatusForbidden,
			"toolscope answers only at localhost, an IP address or a name given with --allow-host, not at "+host+": open it as "+instead)
	}
	name := hostName(host)
	return sendNotice(c, fiber.StatusForbidden, web.Notice{
		Title: "Open toolscope by its address",
		Text: "toolscope answers only at localhost, an IP address, or a host name it was started with, so that no other " +
			"web page can reach it through a name of its own. " + name + " is not one of those names.",
		Link:    sameRequestAt(c, local),
		Command: "toolscope serve --allow-host " + name,
	})
}

// sameRequestAt is the link to the request's path and query at address.
// It is built from their parsed values, never from the request target as
// sent, which could carry another host: "GET @evil.com" would otherwise
// make http://127.0.0.1:8000@evil.com, a link to evil.com.
func sameRequestAt(c *fiber.Ctx, address string) string {
	u := url.URL{Scheme: "http", Host: address, Path: c.Path(), RawQuery: string(c.Request().URI().QueryString())}
	return u.String()
}

// wantsHTML reports whether the client is a browser opening a page, which
// should get a page rather than JSON.
func wantsHTML(c *fiber.Ctx) bool {
	return strings.Contains(c.Get(fiber.HeaderAccept), "text/html")
}

func sendNotice(c *fiber.Ctx, status int, n web.Notice) error {
	c.Status(status).Type("html", "utf-8")
	return web.NoticePage(n).Render(c.UserContext(), c.Response().BodyWriter())
}
