package identity

import (
	"strings"
	"testing"

	"github.com/platform/backend/domain/errs"
)

func TestParseInvitationCode(t *testing.T) {
	org, inv := "01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002"
	for _, tc := range []struct {
		code string
		ok   bool
	}{
		{"inv_" + org + "." + inv + ".s3cret", true},
		{"inv_" + org + "." + inv, false},
		{"inv_" + org + "." + inv + ".", false},
		{"inv_" + org + "." + inv + ".a.b", false},
		{"inv_not-a-uuid." + inv + ".s", false},
		{"pwr_" + org + "." + inv + ".s", false},
		{"inv_" + org + "." + inv + "." + strings.Repeat("x", 129), false},
	} {
		o, i, s, ok := parseInvitationCode(tc.code)
		if ok != tc.ok || (ok && (o != org || i != inv || s != "s3cret")) {
			t.Errorf("%q: got %q %q %q %v", tc.code, o, i, s, ok)
		}
	}
}

func TestCheckNewPasswordNamesTheMember(t *testing.T) {
	for _, tc := range []struct {
		pw   string
		fail bool
	}{
		{"short", true},
		{"123456789", true},
		{"1234567890", false},
		{strings.Repeat("x", 257), true},
	} {
		err := checkNewPassword(tc.pw, "/newPassword")
		e, _ := errs.As(err)
		switch {
		case !tc.fail && err != nil:
			t.Errorf("%q refused: %v", tc.pw, err)
		case tc.fail && (e == nil || e.Code != "invalid_input" || len(e.Fields) != 1 || e.Fields[0].Pointer != "/newPassword"):
			t.Errorf("%q: %v", tc.pw, err)
		}
	}
}
