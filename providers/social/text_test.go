package social

import (
	"testing"
	"time"
)

func TestSameText(t *testing.T) {
	tests := []struct {
		sent, seen string
		same       bool
	}{
		{"Hello world", "Hello world", true},
		{"Hello  world\n", "Hello world", true},
		{"Read https://example.com/a?b=c now", "Read https://t.co/abc123 now", true},
		{"Hello world", "Hello world!", false},
		{"Launch day", "launch day", false},
	}
	for _, tc := range tests {
		if got := SameText(tc.sent, tc.seen); got != tc.same {
			t.Errorf("SameText(%q, %q) = %v", tc.sent, tc.seen, got)
		}
	}
}

func TestPlainTextOfMastodonHTML(t *testing.T) {
	html := `<p>Fish &amp; chips<br />tonight</p><p>See <a href="https://example.com/x" rel="nofollow"><span class="invisible">https://</span><span class="">example.com/x</span></a> <a href="https://m.test/tags/food" class="mention hashtag">#<span>food</span></a></p>`
	want := "Fish & chips\ntonight\nSee https://example.com/x #food"
	if got := PlainText(html); got != want {
		t.Fatalf("PlainText = %q, want %q", got, want)
	}
	if !SameText("Fish & chips\ntonight\n\nSee https://example.com/x #food", PlainText(html)) {
		t.Fatal("the rendered status does not match the sent text")
	}
}

func TestMatchPicksTheOldestCandidateInTheWindow(t *testing.T) {
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cands := []Candidate{
		{ID: "new", Text: "hi", CreatedAt: since.Add(time.Minute)},
		{ID: "other", Text: "something else", CreatedAt: since},
		{ID: "ours", Text: "hi", CreatedAt: since.Add(time.Second)},
		{ID: "old", Text: "hi", CreatedAt: since.Add(-time.Hour)},
		{ID: "reply", Text: "hi", ReplyTo: "p1", CreatedAt: since.Add(2 * time.Second)},
	}
	if got, ok := Match(Query{Text: "hi", Since: since}, cands); !ok || got.ID != "ours" {
		t.Fatalf("match %+v %v, want ours", got, ok)
	}
	if got, ok := Match(Query{Text: "hi", ReplyTo: "p1", Since: since}, cands); !ok || got.ID != "reply" {
		t.Fatalf("match %+v %v, want reply", got, ok)
	}
	if _, ok := Match(Query{Text: "bye", Since: since}, cands); ok {
		t.Fatal("matched a text never posted")
	}
}

func TestTextWithLink(t *testing.T) {
	tests := []struct {
		post Post
		want string
	}{
		{Post{Text: "News"}, "News"},
		{Post{Text: "News", Link: "https://a.test"}, "News\nhttps://a.test"},
		{Post{Text: "See https://a.test", Link: "https://a.test"}, "See https://a.test"},
		{Post{Link: "https://a.test"}, "https://a.test"},
	}
	for _, tc := range tests {
		if got := TextWithLink(tc.post); got != tc.want {
			t.Errorf("TextWithLink(%+v) = %q, want %q", tc.post, got, tc.want)
		}
	}
}
