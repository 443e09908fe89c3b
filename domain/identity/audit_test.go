package identity_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/platform/backend/domain/identity"
)

// auditPayloads is the payload of every identity event type. A new event
// type fails TestAuditRedactedCoversSecrets until it is listed here, so its
// members are looked at before the audit view shows them.
var auditPayloads = map[string]any{
	identity.APIKeyCreated:                  identity.APIKeyCreatedV1{},
	identity.APIKeyRevoked:                  identity.APIKeyRevokedV1{},
	identity.APIKeyResourcesBound:           identity.APIKeyUpdatedV1{},
	identity.APIKeyUpdated:                  identity.APIKeyUpdatedV1{},
	identity.CatalogEntrySeeded:             identity.CatalogEntryV1{},
	identity.DeveloperAppRegistered:         identity.CatalogEntryV1{},
	identity.OrganizationCreated:            identity.OrganizationCreatedV1{},
	identity.OrganizationDeleted:            identity.OrganizationChangedV1{},
	identity.OrganizationRestored:           identity.OrganizationChangedV1{},
	identity.OrganizationPermanentlyDeleted: identity.OrganizationChangedV1{},
	identity.MemberAdded:                    identity.MemberV1{},
	identity.MemberRoleChanged:              identity.MemberV1{},
	identity.MemberRemoved:                  identity.MemberRemovedV1{},
	identity.UserCreated:                    identity.UserCreatedV1{},
	identity.UserDeleted:                    identity.UserChangedV1{},
	identity.UserRestored:                   identity.UserChangedV1{},
	identity.UserPermanentlyDeleted:         identity.UserChangedV1{},
	identity.UserPasswordChanged:            identity.UserPasswordChangedV1{},
	identity.UserSessionsRevoked:            identity.UserSessionsRevokedV1{},
	identity.SessionStarted:                 identity.SessionStartedV1{},
	identity.SessionRefreshed:               identity.SessionRefreshedV1{},
	identity.SessionEnded:                   identity.SessionEndedV1{},
	identity.InvitationCreated:              identity.InvitationCreatedV1{},
	identity.InvitationAccepted:             identity.InvitationAcceptedV1{},
	identity.InvitationRevoked:              identity.InvitationRevokedV1{},
	identity.MagicLinkIssued:                identity.OneTimeIssuedV1{},
	identity.MagicLinkConsumed:              identity.OneTimeConsumedV1{},
	identity.SSOCodeIssued:                  identity.OneTimeIssuedV1{},
	identity.SSOCodeConsumed:                identity.OneTimeConsumedV1{},
	identity.UserMFAEnrolled:                identity.UserMFAEnrolledV1{},
	identity.UserMFAConfirmed:               identity.UserMFAConfirmedV1{},
	identity.UserMFACodeUsed:                identity.UserMFACodeUsedV1{},
	identity.UserMFACodeRejected:            identity.UserMFACodeRejectedV1{},
	identity.UserMFADisabled:                identity.UserMFADisabledV1{},
	identity.MFAChallengeIssued:             identity.MFAChallengeIssuedV1{},
	identity.MFAChallengeConsumed:           identity.MFAChallengeConsumedV1{},
	identity.ServiceAccessGranted:           identity.ServiceAccessV1{},
	identity.ServiceAccessRevoked:           identity.ServiceAccessV1{},
	identity.RoleBundleSet:                  identity.RoleBundleSetV1{},
	identity.UserOverridesSet:               identity.UserOverridesSetV1{},
	identity.PreferencesSet:                 identity.PreferencesSetV1{},
	identity.CheckoutProvisioned:            identity.CheckoutProvisionedV1{},
	identity.SafetyNetSent:                  identity.SafetyNetSentV1{},
	identity.CheckoutReleased:               identity.CheckoutReleasedV1{},
	identity.EntitlementRecorded:            identity.EntitlementRecordedV1{},
	identity.PasswordResetRequested:         identity.PasswordResetRequestedV1{},
	identity.PasswordResetCompleted:         identity.PasswordResetCompletedV1{},
	identity.WorkspaceSuspended:             identity.WorkspaceStatusV1{},
	identity.WorkspaceCreated:               identity.WorkspaceV1{},
	identity.WorkspaceRenamed:               identity.WorkspaceV1{},
	identity.WorkspaceDefaultSet:            identity.WorkspaceV1{},
	identity.WorkspaceDeleted:               identity.WorkspaceV1{},
	identity.WorkspaceReinstated:            identity.WorkspaceStatusV1{},
	identity.WorkspaceRevoked:               identity.WorkspaceStatusV1{},
}

// A member name that suggests a secret, a secret's hash or key material.
var auditSecretish = regexp.MustCompile(`hash|secret|password|passwd|token|otp|backup_code|private|credential|seed`)

// Members whose names match auditSecretish but hold no secret, and why.
var auditNotSecret = map[string]string{
	"token_id":    "the id of a one-time token (its stream), not its secret",
	"backup_code": "the index of the spent backup code, not the code",
}

// TestAuditRedactedCoversSecrets: every member of every identity event that
// names a secret, a hash or key material is declared in AuditRedacted for
// that event type (the history projection drops exactly those), and every
// declaration names a member its event has.
func TestAuditRedactedCoversSecrets(t *testing.T) {
	for _, typ := range auditEventTypes(t) {
		if _, ok := auditPayloads[typ]; !ok {
			t.Errorf("event type %s has no payload in auditPayloads: list it, and declare its secret members in AuditRedacted", typ)
		}
	}
	for typ, payload := range auditPayloads {
		members := map[string]bool{}
		auditMembers(reflect.TypeOf(payload), "", members)
		declared := identity.AuditRedacted[typ]
		for m := range members {
			name := m[strings.LastIndex(m, "/")+1:]
			if !auditSecretish.MatchString(name) || auditNotSecret[name] != "" {
				continue
			}
			if strings.Count(m, "/") > 1 {
				t.Errorf("%s: secret member %s is nested; the audit view redacts top-level members only", typ, m)
				continue
			}
			if !slices.Contains(declared, name) {
				t.Errorf("%s: member %q looks secret but AuditRedacted does not redact it", typ, name)
			}
		}
		for _, d := range declared {
			if !members["/"+d] {
				t.Errorf("%s: AuditRedacted names %q, which the payload does not have", typ, d)
			}
		}
	}
	for typ := range identity.AuditRedacted {
		if _, ok := auditPayloads[typ]; !ok {
			t.Errorf("AuditRedacted declares %s, which is no identity event type", typ)
		}
	}
	// The finding of the hardening issue, spelled out.
	if got := identity.AuditRedacted[identity.SessionStarted]; !slices.Contains(got, "access_hash") || !slices.Contains(got, "refresh_hash") {
		t.Errorf("session.started redacts %v, want access_hash and refresh_hash", got)
	}
}

// auditMembers collects the JSON member pointers of a payload type (nested
// structs, slices and maps of structs included).
func auditMembers(t reflect.Type, prefix string, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() == "time" {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			auditMembers(f.Type, prefix, out) // embedded: members are promoted
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[prefix+"/"+name] = true
		auditMembers(f.Type, prefix+"/"+name, out)
	}
}

// auditEventTypes lists the event type constants of the identity package
// ("identity.<stream>.<past tense>"; stream types have two segments), read
// from its source so that a new one cannot be missed.
func auditEventTypes(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	eventType := regexp.MustCompile(`^identity\.[a-z_]+\.[a-z_]+$`)
	var out []string
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for _, v := range spec.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && eventType.MatchString(s) {
					out = append(out, s)
				}
			}
			return true
		})
	}
	if len(out) < 40 {
		t.Fatalf("found only %d identity event types in the source: %v", len(out), out)
	}
	sort.Strings(out)
	return out
}
