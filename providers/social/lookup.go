package social

import (
	"strconv"
	"strings"
	"time"
)

// LookupSkew widens a lookup's window: the network's clock and ours may
// disagree, and a post made just before the attempt's recorded start is
// still ours.
const LookupSkew = 2 * time.Minute

// From is the earliest creation time a post of the query may have (zero:
// no bound).
func (q Query) From() time.Time {
	if q.Since.IsZero() {
		return time.Time{}
	}
	return q.Since.Add(-LookupSkew)
}

// Candidate is one of our recent posts as a network lists it.
type Candidate struct {
	ID        string
	URL       string
	Text      string // as the network shows it, HTML already turned to text
	ReplyTo   string // the post it replies to, when the network says
	CreatedAt time.Time
}

// Match picks the post a query is about: the same text (SameText), the same
// thread parent when the query names one, created within the window. With
// several, the oldest wins: it is the one closest to the attempt.
func Match(q Query, cands []Candidate) (Candidate, bool) {
	var best Candidate
	found := false
	from := q.From()
	for _, c := range cands {
		switch {
		case !SameText(q.Text, c.Text):
			continue
		case q.ReplyTo != "" && c.ReplyTo != q.ReplyTo:
			continue
		case !from.IsZero() && !c.CreatedAt.IsZero() && c.CreatedAt.Before(from):
			continue
		}
		if !found || c.CreatedAt.Before(best.CreatedAt) {
			best, found = c, true
		}
	}
	return best, found
}

// Found is the lookup answer for a matched candidate.
func Found(c Candidate) LookupResult {
	return LookupResult{State: LookupFound, Post: Published{ID: c.ID, URL: c.URL, CreatedAt: c.CreatedAt}}
}

// NotFound is the lookup answer when nothing matched.
func NotFound() LookupResult { return LookupResult{State: LookupNotFound} }

// TextWithLink is the text of a network without a link field: the link on
// its own line after the text, unless the text holds it already.
func TextWithLink(p Post) string {
	switch {
	case p.Link == "":
		return p.Text
	case p.Text == "":
		return p.Link
	case strings.Contains(p.Text, p.Link):
		return p.Text
	}
	return p.Text + "\n" + p.Link
}

// FormatUnix is a time as Unix seconds, as query parameters take it.
func FormatUnix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
