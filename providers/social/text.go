package social

import (
	"html"
	"regexp"
	"strings"
)

// SameText reports whether a post's text as the network shows it is the
// text we sent. Networks rewrite text on the way: X shortens links to t.co,
// Mastodon renders HTML, LinkedIn escapes its little-text characters (the
// adapter unescapes them first). So links are dropped and whitespace is
// collapsed on both sides before comparing; everything else must be equal.
func SameText(sent, seen string) bool {
	return normalize(sent) == normalize(seen)
}

var (
	linkPattern = regexp.MustCompile(`https?://\S+`)
	tagPattern  = regexp.MustCompile(`<[^>]*>`)
	breakTags   = regexp.MustCompile(`(?i)<br\s*/?>|</p>\s*<p[^>]*>`)
)

func normalize(s string) string {
	s = linkPattern.ReplaceAllString(s, " ")
	return strings.Join(strings.Fields(s), " ")
}

// PlainText turns the HTML a network renders a post as (Mastodon) back into
// text: line breaks for <br> and paragraphs, tags dropped, entities decoded.
func PlainText(htmlText string) string {
	s := breakTags.ReplaceAllString(htmlText, "\n")
	s = tagPattern.ReplaceAllString(s, "")
	return html.UnescapeString(s)
}
