package objectstore

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateKey(t *testing.T) {
	for _, c := range []struct {
		key string
		ok  bool
	}{
		{"org1/publishing/media/01J0ABC", true},
		{"a", true},
		{"org1/ünïcødé/with space.pdf", true},
		{"...", true}, // only "." and ".." are path names
		{strings.Repeat("a/", MaxKeyBytes/2-1) + "a", true},
		{"", false},
		{"/abs", false},
		{"trailing/", false},
		{"a//b", false},
		{"a/./b", false},
		{"a/../b", false},
		{"..", false},
		{"a\x00b", false},
		{"a\tb", false},
		{"a\x7fb", false},
		{"a\u0085b", false}, // C1 control
		{"a\\b", false},
		{"a/\xc3", false},
		{strings.Repeat("a", MaxKeyBytes+1), false},
		{strings.Repeat("a", MaxSegmentBytes+1), false},
	} {
		err := ValidateKey(c.key)
		if c.ok != (err == nil) {
			t.Errorf("ValidateKey(%q) = %v", c.key, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, not an invalid key", c.key, err)
		}
	}
}

func TestLocalLayoutRoundTrips(t *testing.T) {
	for _, key := range []string{"a", "a/b", "a.d/b.m", "org1/x y/z"} {
		p := metaPath(key)
		back, ok := keyFromMetaPath(p)
		if !ok || back != key {
			t.Errorf("%q -> %q -> %q %v", key, p, back, ok)
		}
	}
	for _, p := range []string{"objects/a", "objects/a.d", "objects/a/b.m", "blobs/ab/x", "objects/.m", "objects/a.d/..m"} {
		if k, ok := keyFromMetaPath(p); ok {
			t.Errorf("%q read as key %q", p, k)
		}
	}
	if got := prefixDir("org1/media/ab"); got != "objects/org1.d/media.d" {
		t.Errorf("prefixDir = %q", got)
	}
	if got := prefixDir("org"); got != "objects" {
		t.Errorf("prefixDir = %q", got)
	}
}

func TestErrorsMatchTheirKind(t *testing.T) {
	err := withOp("put", "k", newError(KindTooLarge, "", "", "over", nil))
	if !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrNotFound) || KindOf(err) != KindTooLarge {
		t.Fatalf("%v", err)
	}
	if KindOf(errors.New("x")) != "" || KindOf(nil) != "" {
		t.Fatal("a foreign error has a kind")
	}
	if got := withOp("get", "k", errors.New("disk on fire")); KindOf(got) != KindUnavailable || !strings.Contains(got.Error(), `get "k"`) {
		t.Fatalf("%v", got)
	}
}
