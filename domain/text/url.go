package text

import (
	"errors"
	"net/url"
	"strings"

	"github.com/platform/backend/domain/errs"
)

// URLRules are what the places that take an absolute http(s) URL may say
// differently; everything else is the same everywhere (ParseURL). The zero
// value is a link, a check or a webhook target: a query and a fragment are
// part of it.
type URLRules struct {
	// NoQuery refuses a query (?..., a bare ? too), NoFragment a fragment
	// (#...): a base URL that paths are appended to would carry them into
	// the middle of every URL made from it.
	NoQuery, NoFragment bool
	// Detail, when set, is the one sentence said for every problem of the
	// URL itself (not for its length or control characters, which keep
	// Line's sentences): the wording a member's clients have read since
	// before this check (the gateway's webhook_url).
	Detail string
}

// The sentences of ParseURL's problems.
const (
	URLNotAbsolute  = "must be an absolute http or https URL"
	URLNotHTTP      = "must be an http or https URL"
	URLCredentials  = "must not contain credentials (user:password@)"
	URLSpace        = "must not contain spaces (write %20)"
	URLWithQuery    = "must not have a query (?...)"
	URLWithFragment = "must not have a fragment (#...)"
)

// ParseURL is the one check of an absolute http or https URL, for a
// tenant's member and an operator's setting alike: it parses s and answers
// the URL, or nil and why not (a sentence for the client or the operator).
// Always refused: a relative URL, one without a host name, another scheme,
// credentials (user:password@, which would be shown wherever the URL is
// and sent wherever it leads: logs, events, health answers, browsers),
// spaces (the HTTP schemas' URL pattern refuses them too), more than MaxURL
// characters and control characters (Line). r says the rest.
func ParseURL(s string, r URLRules) (*url.URL, string) {
	u, problem := parseURL(s, r)
	if problem != "" && r.Detail != "" {
		problem = r.Detail
	}
	if problem == "" {
		if f := Line(nil, "", s, MaxURL); len(f) > 0 {
			problem = f[0].Detail
		}
	}
	if problem != "" {
		return nil, problem
	}
	return u, ""
}

func parseURL(s string, r URLRules) (*url.URL, string) {
	u, err := url.Parse(s)
	switch {
	case err != nil || !u.IsAbs() || u.Hostname() == "":
		return nil, URLNotAbsolute
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, URLNotHTTP
	case u.User != nil:
		return nil, URLCredentials
	case strings.Contains(s, " "):
		return nil, URLSpace
	case r.NoQuery && (u.RawQuery != "" || u.ForceQuery):
		return nil, URLWithQuery
	case r.NoFragment && strings.Contains(s, "#"):
		return nil, URLWithFragment
	}
	return u, ""
}

// URL appends the problem of a member that must be an absolute http or
// https URL (ParseURL) to fields.
func URL(fields []errs.Field, pointer, s string, r URLRules) []errs.Field {
	if _, problem := ParseURL(s, r); problem != "" {
		return append(fields, errs.Field{Pointer: pointer, Detail: problem})
	}
	return fields
}

// URLSetting checks an operator's optional URL setting (ParseURL): nil when
// it is unset or valid, otherwise an error that names the setting and does
// not quote the value (it may hold a password).
func URLSetting(name, value string, r URLRules) error {
	if value == "" {
		return nil
	}
	if _, problem := ParseURL(value, r); problem != "" {
		return errors.New(name + " " + problem)
	}
	return nil
}
