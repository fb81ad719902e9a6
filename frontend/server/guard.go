package server

import (
	"net"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// guard keeps other web pages away from toolscope. A run can call every
// tool the user connected, so a page the user happens to visit must not be
// able to start one (cross-site requests), nor read results by pointing
// its own domain name at 127.0.0.1 (DNS rebinding). Scripts such as curl
// send neither an Origin nor a Sec-Fetch-Site header and pass.
func guard(c *fiber.Ctx) error {
	host := c.Get(fiber.HeaderHost)
	if !localName(host) {
		return fiber.NewError(fiber.StatusForbidden,
			"toolscope answers only at localhost or an IP address, not at "+host+": open it as http://127.0.0.1:<port>")
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

// localName reports whether a Host header names this machine directly:
// localhost, or an IP address, with or without a port.
func localName(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.Trim(name, "[]")
	return name == "localhost" || strings.HasSuffix(name, ".localhost") || net.ParseIP(name) != nil
}
