package identity_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

// TestCheckoutAnchorSupersedeAndRelease: a dead anchor is replaced only
// from the state the caller checked, a superseding anchor's safety net is
// unsent again, and a released anchor lets the next call anchor anew.
func TestCheckoutAnchorSupersedeAndRelease(t *testing.T) {
	req := identity.CheckoutRequest{AppID: "status", Mode: "free"}
	c, _ := identity.LoadCheckout(nil)
	if ch, ok := c.Supersede("", "h", "o", "u", req, testNow); ok || ch != nil {
		t.Fatal("nothing to supersede without an anchor")
	}
	history, _ := c.Provision("h", "o1", "u1", req, testNow)
	history = append(history, c.MarkSafetyNetSent("tok", testNow)...)
	c, _ = identity.LoadCheckout(eventtest.History(t, history...))
	if !c.SafetyNetSent() {
		t.Fatal("safety net recorded")
	}
	if ch, ok := c.Supersede("other", "h", "o2", "u2", req, testNow); ok || ch != nil {
		t.Fatal("a supersede from a stale state changes nothing")
	}
	ch, ok := c.Supersede("o1", "h", "o2", "u1", identity.CheckoutRequest{AppID: "design", Mode: "all"}, testNow)
	if !ok || len(ch) != 1 {
		t.Fatal("supersede from the checked state")
	}
	history = append(history, ch...)
	c, _ = identity.LoadCheckout(eventtest.History(t, history...))
	if st := c.State(); st.OrganizationID != "o2" || st.UserID != "u1" || st.Supersedes != "o1" || st.AppID != "design" || c.SafetyNetSent() {
		t.Fatalf("superseded anchor %+v sent=%v", st, c.SafetyNetSent())
	}

	if ch := c.Release("o1", "email_taken", testNow); ch != nil {
		t.Fatal("a release from a stale state changes nothing")
	}
	history = append(history, c.Release("o2", "email_taken", testNow)...)
	c, _ = identity.LoadCheckout(eventtest.History(t, history...))
	if c.Exists() {
		t.Fatal("a released anchor is gone")
	}
	if ch, ok := c.Provision("h", "o3", "u3", req, testNow); !ok || len(ch) != 1 {
		t.Fatal("after a release the next call anchors anew")
	}
}

func TestCheckoutWorkspaceNameLimit(t *testing.T) {
	cat, _ := identity.LoadCatalog(nil)
	err := identity.ValidateCheckout(identity.CheckoutRequest{Email: "a@b.test", WorkspaceName: strings.Repeat("x", 201), Mode: "free"}, cat)
	e, ok := errs.As(err)
	if !ok || !slices.ContainsFunc(e.Fields, func(f errs.Field) bool { return f.Pointer == "/workspaceName" }) {
		t.Fatalf("a name the organization would refuse is refused before any step: %v", err)
	}
}
