package identity

import (
	"slices"

	"github.com/platform/backend/domain/errs"
)

// A key never exceeds its creator, and not only at creation (the options
// calculation) but for as long as it lives: at every validation its
// permissions are its own (scopes, bindings, organization access)
// intersected with what its creator holds now. A creator demoted to guest
// takes its keys down to what a guest holds; a creator that left the
// organization, was deleted or erased, or (for a key minted by a key) was
// revoked, leaves its keys holding nothing. Keys minted in-process by the
// bootstrap path as "system" have no creator to follow.

// Kinds of key creators.
const (
	CreatorUser   = "user"    // a member's session (platformctl bootstrap's key: the bootstrap owner)
	CreatorAPIKey = "api_key" // another key of the organization
	CreatorSystem = "system"  // the in-process bootstrap path (test harnesses, benchmarks)
)

// MaxKeyChain bounds keys minted by keys minted by keys: validation follows
// the chain to its root, and a deeper chain holds nothing (fail closed)
// rather than costing one more load per link.
const MaxKeyChain = 8

// CreatorStanding is what a key's creator holds now, as validation found it
// on the write side.
type CreatorStanding struct {
	Kind string
	// Present: a user creator is an active account and a member of the
	// key's organization; a key creator is an active key of it whose own
	// creator is present in turn.
	Present bool
	// Permissions the creator holds now in the key's organization (a user:
	// its evaluated member permissions; a key: its narrowed permissions).
	Permissions []string
	// User is the user at the root of the creator chain (the creator, or
	// the creator key's user) and Role that user's current role in the
	// key's organization: who the key acts as. Both "" for the system.
	User, Role string
}

// ErrKeyCreatorGone is what validation answers for a key whose creator no
// longer stands behind it: the key speaks for nobody.
var ErrKeyCreatorGone = errs.AuthenticationRequired("the key's creator no longer belongs to its organization (removed, deleted, or a revoked key): " +
	"the key holds nothing; an administrator issues a new one")

// NarrowToCreator keeps the key's permissions its creator still holds.
// keyPerms are concrete permission strings (KeyPermissions); the creator's
// may be patterns. System keys keep theirs; an absent or unknown creator
// leaves nothing.
func NarrowToCreator(keyPerms []string, c CreatorStanding) []string {
	switch {
	case c.Kind == CreatorSystem:
		return keyPerms
	case !c.Present || (c.Kind != CreatorUser && c.Kind != CreatorAPIKey):
		return []string{}
	}
	out := []string{}
	for _, p := range keyPerms {
		if Holds(c.Permissions, p) {
			out = append(out, p)
		}
	}
	return out
}

// KeyLineage is who stands behind a key, for changing it: the ids up its
// creator chain (the direct creator first) and the role its root creator
// holds now in the key's organization ("" when the root is the system, or
// no longer a member, or the chain breaks).
type KeyLineage struct {
	Creators []string
	RootRole string
}

// CheckKeyChange decides who may rename, narrow, widen (within the options
// calculation) or revoke a key: a platform role; the key itself; whoever
// minted it, directly or up its chain; or a caller whose role is at or
// above the root creator's current role (the role ladder). A key minted by
// the system, or whose creator is gone, needs an admin role. A key acting
// as caller ranks as admin only while it holds users:manage (as it does for
// memberships), and below every role otherwise. Another organization's key
// never gets here (404 first); a visible key the caller may not change is
// 403.
func CheckKeyChange(c Caller, keyID string, l KeyLineage) error {
	if PlatformBypass(c) || c.PrincipalID == keyID || (c.PrincipalID != "" && slices.Contains(l.Creators, c.PrincipalID)) {
		return nil
	}
	need := l.RootRole
	if need == "" {
		need = RoleAdmin
	}
	have := 0
	switch c.Type {
	case "user":
		have = Rank(c.Role)
	case CreatorAPIKey:
		if Holds(c.Permissions, "app_platform_auth.users:manage") {
			have = Rank(RoleAdmin)
		}
	}
	if have > 0 && have >= Rank(need) {
		return nil
	}
	return errs.PermissionDenied("only the key's creator, or a role at or above its creator's (" + need + "), changes or revokes this key")
}
