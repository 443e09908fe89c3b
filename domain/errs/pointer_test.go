package errs

import "testing"

func TestMemberPointer(t *testing.T) {
	for _, c := range []struct{ parent, name, want string }{
		{"", "title", "/title"},
		{"/steps/0", "input", "/steps/0/input"},
		{"", "a/b", "/a~1b"},
		{"/x", "~tilde", "/x/~0tilde"},
		{"", "~/", "/~0~1"}, // "~" first: "/" escaped to "~1" is not escaped again
		{"/y", "", "/y/"},
	} {
		if got := MemberPointer(c.parent, c.name); got != c.want {
			t.Errorf("MemberPointer(%q, %q) = %q, want %q", c.parent, c.name, got, c.want)
		}
	}
}
