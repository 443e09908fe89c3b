package text_test

import (
	"strings"
	"testing"

	"github.com/platform/backend/domain/text"
)

// TestParseURL: the one check of an absolute http(s) URL, for tenants'
// members and operators' settings alike; the rules say only what differs.
func TestParseURL(t *testing.T) {
	const tooLong = "must be at most 2048 characters"
	long := "https://example.com/" + strings.Repeat("a", text.MaxURL-len("https://example.com/"))
	base := text.URLRules{NoQuery: true, NoFragment: true}
	tests := []struct {
		name  string
		s     string
		rules text.URLRules
		want  string // the problem, "" when accepted
		host  string // the accepted URL's host
	}{
		{"https", "https://example.com/a/b", text.URLRules{}, "", "example.com"},
		{"http with a port", "http://example.com:8080", text.URLRules{}, "", "example.com:8080"},
		{"scheme in capitals", "HTTPS://example.com/", text.URLRules{}, "", "example.com"},
		{"empty", "", text.URLRules{}, text.URLNotAbsolute, ""},
		{"relative", "/path/only", text.URLRules{}, text.URLNotAbsolute, ""},
		{"relative without a slash", "example.com/path", text.URLRules{}, text.URLNotAbsolute, ""},
		{"scheme-relative", "//example.com/path", text.URLRules{}, text.URLNotAbsolute, ""},
		{"no host", "https:///path", text.URLRules{}, text.URLNotAbsolute, ""},
		{"opaque, no host", "https:example.com", text.URLRules{}, text.URLNotAbsolute, ""},
		{"a port but no host name", "http://:8080/", text.URLRules{}, text.URLNotAbsolute, ""},
		{"ftp scheme", "ftp://example.com/file", text.URLRules{}, text.URLNotHTTP, ""},
		{"javascript scheme", "javascript://example.com/%0aalert(1)", text.URLRules{}, text.URLNotHTTP, ""},
		{"user and password", "https://user:secret@example.com/", text.URLRules{}, text.URLCredentials, ""},
		{"user alone", "https://user@example.com/", text.URLRules{}, text.URLCredentials, ""},
		{"empty user", "https://@example.com/", text.URLRules{}, text.URLCredentials, ""},
		{"fragment in a link", "https://example.com/a#part", text.URLRules{}, "", "example.com"},
		{"fragment in a base URL", "https://example.com/a#part", base, text.URLWithFragment, ""},
		{"empty fragment in a base URL", "https://example.com/a#", base, text.URLWithFragment, ""},
		{"query in a link", "https://example.com/a?x=1", text.URLRules{}, "", "example.com"},
		{"query in a base URL", "https://example.com/a?x=1", base, text.URLWithQuery, ""},
		{"bare ? in a base URL", "https://example.com/a?", base, text.URLWithQuery, ""},
		{"base URL without query or fragment", "https://example.com/v1/", base, "", "example.com"},
		{"IPv6 host", "http://[2001:db8::1]:8080/x", text.URLRules{}, "", "[2001:db8::1]:8080"},
		{"IPv6 host unclosed", "http://[2001:db8::1/x", text.URLRules{}, text.URLNotAbsolute, ""},
		{"IPv6 zone", "http://[fe80::1%25eth0]/", text.URLRules{}, "", "[fe80::1%eth0]"},
		{"at the length bound", long, text.URLRules{}, "", "example.com"},
		{"one character too long", long + "b", text.URLRules{}, tooLong, ""},
		{"characters, not bytes, count", "https://example.com/" + strings.Repeat("é", text.MaxURL-len("https://example.com/")), text.URLRules{}, "", "example.com"},
		{"space in the path", "https://example.com/a b", text.URLRules{}, text.URLSpace, ""},
		{"space after", "https://example.com/a ", text.URLRules{}, text.URLSpace, ""},
		{"space before", " https://example.com/a", text.URLRules{}, text.URLNotAbsolute, ""},
		{"space in the host", "https://exa mple.com/", text.URLRules{}, text.URLNotAbsolute, ""},
		{"escaped space", "https://example.com/a%20b", text.URLRules{}, "", "example.com"},
		{"line feed", "https://example.com/a\nb", text.URLRules{}, text.URLNotAbsolute, ""},
		{"NUL", "https://example.com/\x00", text.URLRules{}, text.URLNotAbsolute, ""},
		{"DEL", "https://example.com/\x7f", text.URLRules{}, text.URLNotAbsolute, ""},
		{"C1 control, which net/url lets through", "https://example.com/a\u0085b", text.URLRules{}, "must be one line without control characters", ""},
		{"non-ASCII host", "https://bücher.example/", text.URLRules{}, "", "bücher.example"},
		// A member's own wording stands for every problem of the URL
		// itself; the length and control characters keep Line's.
		{"wording for the URL", "https://user:secret@example.com/", text.URLRules{Detail: "must be a webhook URL"}, "must be a webhook URL", ""},
		{"wording for the scheme", "ftp://example.com/", text.URLRules{Detail: "must be a webhook URL"}, "must be a webhook URL", ""},
		{"wording, a good URL", "https://example.com/", text.URLRules{Detail: "must be a webhook URL"}, "", "example.com"},
		{"wording, not for the length", long + "b", text.URLRules{Detail: "must be a webhook URL"}, tooLong, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, problem := text.ParseURL(tt.s, tt.rules)
			if problem != tt.want {
				t.Fatalf("ParseURL(%q) problem %q, want %q", tt.s, problem, tt.want)
			}
			switch {
			case tt.want != "" && u != nil:
				t.Errorf("ParseURL(%q) answered a URL with a problem", tt.s)
			case tt.want == "" && (u == nil || u.Host != tt.host):
				t.Errorf("ParseURL(%q) = %v, want host %q", tt.s, u, tt.host)
			}
			fields := text.URL(nil, "/m", tt.s, tt.rules)
			if (len(fields) == 0) != (tt.want == "") || len(fields) > 1 || len(fields) == 1 && (fields[0].Pointer != "/m" || fields[0].Detail != tt.want) {
				t.Errorf("URL(%q) = %+v, want one field /m %q", tt.s, fields, tt.want)
			}
		})
	}
}
