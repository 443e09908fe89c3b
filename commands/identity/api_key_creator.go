package identity

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	domain "github.com/platform/backend/domain/identity"
)

// A key holds its scopes only while its creator holds them (domain
// NarrowToCreator), decided at every validation from the write side: the
// creator's user stream (active or not) and its membership and role in the
// key's organization stream, or the creator key's stream. Everything is read
// through the validation cache at the current heads, so a demotion, removal,
// deletion, changed bundle or override, or a revoked creator key applies to
// the very next call, like every other change.

// creatorKind is the kind of a key's creator: recorded since keys carry
// it, inferred for older keys. Those were minted either in-process by the
// system (ids such as "apptest", "platformctl", never UUIDs) or over HTTP
// by a user or a key (UUIDs: the stream type tells which). "" is a creator
// that cannot be told: it holds nothing.
func (h *Handlers) creatorKind(ctx context.Context, heads map[string]int64, c domain.APIKeyCreatedV1) (string, error) {
	if c.CreatedByType != "" {
		return c.CreatedByType, nil
	}
	if uuid.Validate(c.CreatedBy) != nil {
		return domain.CreatorSystem, nil
	}
	if err := h.moreHeads(ctx, heads, c.CreatedBy); err != nil {
		return "", err
	}
	u, err := current(ctx, h, domain.StreamUser, c.CreatedBy, heads, domain.LoadUser)
	if err != nil || u.Exists() {
		return domain.CreatorUser, err
	}
	k, err := current(ctx, h, domain.StreamAPIKey, c.CreatedBy, heads, domain.LoadAPIKey)
	if err != nil || k.Exists() {
		return domain.CreatorAPIKey, err
	}
	return "", nil
}

// creatorStanding resolves what a key's creator holds now in the key's
// organization (org, loaded at heads), and a fingerprint of what that was
// computed from, for the permission memo: the creator's role (its
// permissions then follow from the catalog and access versions already in
// the memo key), or the creator key's version and its own fingerprint.
func (h *Handlers) creatorStanding(ctx context.Context, heads map[string]int64, c domain.APIKeyCreatedV1, org *domain.Organization,
	depth int) (domain.CreatorStanding, string, error) {
	kind, err := h.creatorKind(ctx, heads, c)
	if err != nil {
		return domain.CreatorStanding{}, "", err
	}
	absent := domain.CreatorStanding{Kind: kind}
	switch kind {
	case domain.CreatorSystem:
		return absent, "system", nil
	case domain.CreatorUser:
		if err := h.moreHeads(ctx, heads, c.CreatedBy); err != nil {
			return absent, "", err
		}
		u, err := current(ctx, h, domain.StreamUser, c.CreatedBy, heads, domain.LoadUser)
		if err != nil {
			return absent, "", err
		}
		m, member := org.Member(c.CreatedBy)
		if !u.Active() || !member {
			return absent, "", nil
		}
		platformRole := ""
		if org.Administration() {
			platformRole = m.PlatformRole
		}
		role := m.Role + "/" + platformRole
		// The same memo entry a session of the creator without a service
		// uses: its member permissions in this organization.
		perms, err := h.permissionsAt(ctx, heads, permissionKey{org: c.OrganizationID, user: c.CreatedBy, role: role},
			func(cat *domain.Catalog, acc *domain.OrgAccess) []string {
				return domain.SessionPermissions(acc.EvalInput(cat, c.CreatedBy, m.Role, platformRole != ""), "", cat)
			})
		if err != nil {
			return absent, "", err
		}
		return domain.CreatorStanding{Kind: kind, Present: true, Permissions: perms, User: c.CreatedBy, Role: domain.RoleOrDefault(m.Role)},
			"user:" + c.CreatedBy + ":" + role, nil
	case domain.CreatorAPIKey:
		if depth >= domain.MaxKeyChain {
			return absent, "", nil
		}
		if err := h.moreHeads(ctx, heads, c.CreatedBy); err != nil {
			return absent, "", err
		}
		ck, err := current(ctx, h, domain.StreamAPIKey, c.CreatedBy, heads, domain.LoadAPIKey)
		if err != nil {
			return absent, "", err
		}
		if !ck.Active() || ck.Created().OrganizationID != c.OrganizationID {
			return absent, "", nil
		}
		perms, root, fp, err := h.keyPermissions(ctx, heads, ck, org, depth+1)
		if err == domain.ErrKeyCreatorGone {
			return absent, "", nil
		}
		if err != nil {
			return absent, "", err
		}
		return domain.CreatorStanding{Kind: kind, Present: true, Permissions: perms, User: root.User, Role: root.Role},
			"key:" + c.CreatedBy + "@" + strconv.FormatInt(heads[c.CreatedBy], 10) + "(" + fp + ")", nil
	}
	return absent, "", nil
}

// keyPermissions are a key's permissions at the current heads: its scopes
// in its target application (KeyPermissions) narrowed by its creator's
// current permissions. A creator that no longer stands behind the key is
// domain.ErrKeyCreatorGone. It also answers the creator's standing (whose
// User and Role are who the key acts as) and the fingerprint of the
// creator chain (see creatorStanding).
func (h *Handlers) keyPermissions(ctx context.Context, heads map[string]int64, k *domain.APIKey, org *domain.Organization,
	depth int) ([]string, domain.CreatorStanding, string, error) {
	c := k.Created()
	creator, fp, err := h.creatorStanding(ctx, heads, c, org, depth)
	if err != nil {
		return nil, creator, "", err
	}
	if creator.Kind != domain.CreatorSystem && !creator.Present {
		return nil, creator, "", domain.ErrKeyCreatorGone
	}
	// The key's own version is part of the memo key (an update changes its
	// scopes or bindings), and so is its creator's standing.
	perms, err := h.permissionsAt(ctx, heads, permissionKey{org: c.OrganizationID, user: c.KeyID, service: c.Service,
		keyVersion: heads[c.KeyID], creator: fp}, func(cat *domain.Catalog, acc *domain.OrgAccess) []string {
		return domain.NarrowToCreator(domain.KeyPermissions(c.Scopes, c.Service, k.Bindings(), org.Administration(), cat, acc), creator)
	})
	return perms, creator, fp, err
}

// creatorChainIDs names the streams a validation of a cached key will read
// for its creator chain, so that the first heads query covers them.
func (h *Handlers) creatorChainIDs(k *domain.APIKey) []string {
	var ids []string
	for depth := 0; k != nil && depth < domain.MaxKeyChain; depth++ {
		c := k.Created()
		if c.CreatedByType == domain.CreatorSystem || (c.CreatedByType == "" && uuid.Validate(c.CreatedBy) != nil) {
			break
		}
		ids = append(ids, c.CreatedBy)
		next, ok := peekAs[*domain.APIKey](h, domain.StreamAPIKey, c.CreatedBy)
		if !ok {
			break
		}
		k = next
	}
	return ids
}

// KeyLineage is who stands behind a key, for the change check: the creator
// chain up to its root, and the root user's current role in the key's
// organization ("" for the system, a creator that left, or a broken chain).
func (h *Handlers) KeyLineage(ctx context.Context, k *domain.APIKey) (domain.KeyLineage, error) {
	var l domain.KeyLineage
	org, err := h.loadOrganization(ctx, k.Created().OrganizationID)
	if err != nil {
		return l, err
	}
	heads := map[string]int64{}
	if ids := h.creatorChainIDs(k); len(ids) > 0 {
		if heads, err = h.heads(ctx, ids...); err != nil {
			return l, err
		}
	}
	for depth := 0; depth < domain.MaxKeyChain; depth++ {
		c := k.Created()
		kind, err := h.creatorKind(ctx, heads, c)
		if err != nil {
			return l, err
		}
		switch kind {
		case domain.CreatorUser:
			l.Creators = append(l.Creators, c.CreatedBy)
			if err := h.moreHeads(ctx, heads, c.CreatedBy); err != nil {
				return l, err
			}
			u, err := current(ctx, h, domain.StreamUser, c.CreatedBy, heads, domain.LoadUser)
			if err != nil {
				return l, err
			}
			if m, ok := org.Member(c.CreatedBy); ok && u.Active() {
				l.RootRole = m.Role
			}
			return l, nil
		case domain.CreatorAPIKey:
			l.Creators = append(l.Creators, c.CreatedBy)
			if err := h.moreHeads(ctx, heads, c.CreatedBy); err != nil {
				return l, err
			}
			next, err := current(ctx, h, domain.StreamAPIKey, c.CreatedBy, heads, domain.LoadAPIKey)
			if err != nil {
				return l, err
			}
			if !next.Exists() || next.Created().OrganizationID != c.OrganizationID {
				return l, nil
			}
			k = next
		default:
			return l, nil
		}
	}
	return l, nil
}
