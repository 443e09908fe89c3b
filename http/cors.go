package httpapi

import (
	"net/url"
	"strings"
)

// CORSPolicy lists the browser origins allowed to call the platform with
// credentials and the platform's headers (X-Platform-Auth, X-App-ID, ...),
// preflight included: first-party hosts and their preview subdomains.
//
// A pattern is scheme://host[:port]. The host may start with "*." (any
// subdomain, at any depth, never the bare domain) and the port may be "*".
// Examples: https://app.example.com, https://*.preview.example.com,
// http://localhost:*.
type CORSPolicy struct {
	Origins []string
}

// DefaultFirstPartyOrigins serve local development.
var DefaultFirstPartyOrigins = []string{"http://localhost:*", "http://127.0.0.1:*"}

// Allows reports whether the Origin header value may call with credentials.
func (p *CORSPolicy) Allows(origin string) bool {
	patterns := DefaultFirstPartyOrigins
	if p != nil && len(p.Origins) > 0 {
		patterns = p.Origins
	}
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" || o.Path != "" || o.User != nil {
		return false
	}
	for _, pat := range patterns {
		if originMatches(pat, o) {
			return true
		}
	}
	return false
}

func originMatches(pattern string, o *url.URL) bool {
	scheme, rest, ok := strings.Cut(pattern, "://")
	if !ok || !strings.EqualFold(scheme, o.Scheme) {
		return false
	}
	host, port, hasPort := strings.Cut(rest, ":")
	switch {
	case !hasPort && o.Port() != "":
		return false
	case hasPort && port != "*" && port != o.Port():
		return false
	}
	got := strings.ToLower(o.Hostname())
	host = strings.ToLower(host)
	if suffix, wild := strings.CutPrefix(host, "*."); wild {
		return strings.HasSuffix(got, "."+suffix) && len(got) > len(suffix)+1
	}
	return got == host
}
