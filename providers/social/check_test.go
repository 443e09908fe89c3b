package social

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestCheckPost(t *testing.T) {
	caps := Capabilities{MaxTextRunes: 10, MaxMedia: 1, MediaKinds: []MediaKind{MediaImage},
		Visibilities: []Visibility{VisibilityPublic}}
	pull := caps
	pull.MediaByURL, pull.MediaRequired = true, true
	conn := Connection{Token: Token{AccessToken: "t"}, Account: Account{ID: "a"}}
	open := func(context.Context) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
	tests := []struct {
		name   string
		caps   Capabilities
		conn   Connection
		post   Post
		reason string
	}{
		{"fine", caps, conn, Post{Text: "hi"}, ""},
		{"no token", caps, Connection{Account: Account{ID: "a"}}, Post{Text: "hi"}, ReasonTokenMissing},
		{"no account", caps, Connection{Token: Token{AccessToken: "t"}}, Post{Text: "hi"}, ReasonAccountMissing},
		{"thread on a network without threads", caps, conn, Post{Text: "hi", ReplyTo: "1"}, ReasonThreadUnsupported},
		{"runes, not bytes", caps, conn, Post{Text: "éééééééééé"}, ""},
		{"too long", caps, conn, Post{Text: "eleven char"}, ReasonTooLong},
		{"empty", caps, conn, Post{}, ReasonTextRequired},
		{"too many media", caps, conn, Post{Media: []Media{{Kind: MediaImage, Open: open}, {Kind: MediaImage, Open: open}}}, ReasonTooManyMedia},
		{"video where images only", caps, conn, Post{Media: []Media{{Kind: MediaVideo, Open: open}}}, ReasonMediaUnsupported},
		{"upload without bytes", caps, conn, Post{Media: []Media{{Kind: MediaImage, URL: "https://m.test/a.jpg"}}}, ReasonMediaInvalid},
		{"pull without URL", pull, conn, Post{Media: []Media{{Kind: MediaImage, Open: open}}}, ReasonMediaInvalid},
		{"media required", pull, conn, Post{Text: "hi"}, ReasonMediaRequired},
		{"visibility", caps, conn, Post{Text: "hi", Visibility: VisibilityPrivate}, ReasonVisibility},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckPost("network_1", tc.caps, tc.conn, tc.post)
			if tc.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e, ok := AsError(err)
			if !ok || e.Reason != tc.reason || e.Sent {
				t.Fatalf("%v, want %s before any call", err, tc.reason)
			}
		})
	}
}
