package contacts

import (
	"strings"
	"testing"
	"time"
)

// TestVCardEncodeEscapesAndFolds: text values escape backslash, comma,
// semicolon and line breaks; lines longer than 75 octets fold without
// splitting a character; the card reads back to the same record.
func TestVCardEncodeEscapesAndFolds(t *testing.T) {
	c := VCard{UID: "urn:uuid:1", First: `Ann, "A"`, Last: `O'Brien; Jr\`, Email: "ann@example.com", Phone: "+1 555",
		Company: strings.Repeat("Ünïcödé ", 20), JobTitle: "line\nbreak", Tags: []string{"a,b", "c"}, Stage: "Qualified",
		Rev: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	out := c.Encode()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n") {
		if len(l) > 75 {
			t.Fatalf("line of %d octets: %q", len(l), l)
		}
	}
	if !strings.Contains(out, `N:O'Brien\; Jr\\;Ann\, "A";;;`) || !strings.Contains(out, `TITLE:line\nbreak`) ||
		!strings.Contains(out, `CATEGORIES:a\,b,c`) || !strings.Contains(out, "REV:20260102T030405Z") {
		t.Fatalf("card:\n%s", out)
	}
	var r CardReader
	unfolded := strings.ReplaceAll(out, "\r\n ", "")
	for _, l := range strings.Split(strings.TrimSuffix(unfolded, "\r\n"), "\r\n") {
		if p, ok := ParseVCardLine(l); ok {
			r.Add(p)
		}
	}
	got := r.Record()
	want := []string{`Ann, "A"`, `O'Brien; Jr\`, "ann@example.com", "'+1 555", c.Company, "line\nbreak", "a,b; c", "Qualified"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("record %q, want %q", got, want)
	}
}

func TestParseVCardLine(t *testing.T) {
	p, ok := ParseVCardLine(`item1.EMAIL;TYPE="INTERNET,pref";PREF=1:a@b.c`)
	if !ok || p.Name != "EMAIL" || p.Params["TYPE"] != "INTERNET,pref" || p.Params["PREF"] != "1" || p.Value != "a@b.c" {
		t.Fatalf("%+v %v", p, ok)
	}
	if _, ok := ParseVCardLine("no colon here"); ok {
		t.Fatal("a line without a colon is a property")
	}
	if _, ok := ParseVCardLine(":value"); ok {
		t.Fatal("a line without a name is a property")
	}
}
