package gateway

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Credential event types. A connection's credential is its secret members,
// sealed together (AES-256-GCM) in the write-side table gateway_credentials;
// these events carry only its id, the key id and its version, so the log
// can say what happened to a secret without ever holding it.
const (
	CredentialStored  = "gateway.credential.stored"
	CredentialRotated = "gateway.credential.rotated"
	// CredentialUndecryptable: the canary found the active credential
	// unreadable with the key ring (-> gateway.credential.invalid).
	CredentialUndecryptable = "gateway.credential.undecryptable"
)

// CredentialEventTypes are the credentials area's event types.
var CredentialEventTypes = []string{CredentialStored, CredentialRotated, CredentialUndecryptable}

// CredentialTable is the write-side table credentials live in (seed 001's
// credential_table of gateway.credential.invalid).
const CredentialTable = "gateway_credentials"

// Credential states.
const (
	CredentialActive     = "active"
	CredentialUnreadable = "undecryptable"
	CredentialDestroyed  = "destroyed"
)

// CredentialStates lists them (schemas).
var CredentialStates = []string{CredentialActive, CredentialUnreadable, CredentialDestroyed}

// CredentialRef is what the log and the answers know of a credential.
type CredentialRef struct {
	CredentialID string    `json:"credential_id"`
	KeyID        string    `json:"key_id"`
	Version      int64     `json:"version"`
	Members      []string  `json:"members"` // names of the secret members, never their values
	State        string    `json:"state"`
	UpdatedAt    time.Time `json:"updated_at"`
	// Reported are the key ids the canary reported undecryptable at this
	// version (once per credential and key id).
	Reported []string `json:"reported"`
}

// CredentialStoredV1 is a new credential version sealed under KeyID.
type CredentialStoredV1 struct {
	ConnectionID string    `json:"connection_id"`
	CredentialID string    `json:"credential_id"`
	KeyID        string    `json:"key_id"`
	Version      int64     `json:"version"`
	Members      []string  `json:"members"`
	At           time.Time `json:"at"`
}

// CredentialRotatedV1 is the same secret re-sealed under KeyID.
type CredentialRotatedV1 struct {
	ConnectionID string    `json:"connection_id"`
	CredentialID string    `json:"credential_id"`
	FromKeyID    string    `json:"from_key_id"`
	KeyID        string    `json:"key_id"`
	Version      int64     `json:"version"`
	At           time.Time `json:"at"`
}

// CredentialUndecryptableV1 is seed 001's credential_table and
// credential_identity, and which key could not open which version.
type CredentialUndecryptableV1 struct {
	ConnectionID       string    `json:"connection_id"`
	Provider           string    `json:"provider"`
	CredentialID       string    `json:"credential_id"`
	CredentialTable    string    `json:"credential_table"`
	CredentialIdentity string    `json:"credential_identity"`
	KeyID              string    `json:"key_id"`
	Version            int64     `json:"version"`
	At                 time.Time `json:"at"`
}

// CredentialIdentity names a credential as seed 001's identity string:
// organization, provider and connection.
func CredentialIdentity(org, provider, connectionID string) string {
	return "organization:" + org + "/provider:" + provider + "/connection:" + connectionID
}

func credentialStored(connectionID, credentialID, keyID string, version int64, members []string, now time.Time) event.Change {
	return event.New(CredentialStored, CredentialStoredV1{ConnectionID: connectionID, CredentialID: credentialID, KeyID: keyID,
		Version: version, Members: sortedCopy(members), At: now})
}

func foldCredential(c *Connection, r event.Recorded) error {
	ref := &c.State.Credential
	switch r.Type {
	case CredentialStored:
		p, err := event.Decode[CredentialStoredV1](r)
		*ref = CredentialRef{CredentialID: p.CredentialID, KeyID: p.KeyID, Version: p.Version, Members: sortedCopy(p.Members),
			State: CredentialActive, UpdatedAt: p.At, Reported: []string{}}
		return err
	case CredentialRotated:
		p, err := event.Decode[CredentialRotatedV1](r)
		ref.KeyID, ref.Version, ref.UpdatedAt, ref.State, ref.Reported = p.KeyID, p.Version, p.At, CredentialActive, []string{}
		return err
	case CredentialUndecryptable:
		p, err := event.Decode[CredentialUndecryptableV1](r)
		if p.Version == ref.Version {
			ref.State = CredentialUnreadable
			ref.Reported = append(ref.Reported, p.KeyID)
		}
		return err
	}
	return nil
}

// SetCredential replaces the secret (a new version sealed under keyID).
// A disconnected or deauthorized connection is active again: new
// credentials reconnect it. A deleted one takes none.
func (c *Connection) SetCredential(keyID string, members []string, now time.Time) ([]event.Change, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if fields := checkSecrets(nil, ConnectionProviders[c.State.Provider], members, true); len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	ref := c.State.Credential
	changes := []event.Change{credentialStored(c.State.ConnectionID, ref.CredentialID, keyID, ref.Version+1, members, now)}
	if c.State.Status != StatusActive {
		next := c.State
		next.Status, next.StatusReason, next.UpdatedAt = StatusActive, "", now
		changes = append(changes, event.New(ConnectionUpdated, next))
	}
	return changes, nil
}

// Rotate records the credential re-sealed under keyID. version is the
// version the command read and re-sealed: another version since is a
// conflict (the command reads again). Already under keyID: nothing.
func (c *Connection) Rotate(version int64, keyID string, now time.Time) ([]event.Change, error) {
	if !c.Exists() {
		return nil, errs.NotFound("connection")
	}
	ref := c.State.Credential
	if ref.State == CredentialDestroyed || c.State.Status == StatusDeleted {
		return nil, errs.Conflict("credential_destroyed", "the connection was deleted with its credential")
	}
	if ref.Version != version {
		return nil, errs.Conflict("credential_changed", "the credential changed while it was rotated; rotate again")
	}
	if ref.KeyID == keyID {
		return nil, nil
	}
	return []event.Change{event.New(CredentialRotated, CredentialRotatedV1{ConnectionID: c.State.ConnectionID, CredentialID: ref.CredentialID,
		FromKeyID: ref.KeyID, KeyID: keyID, Version: version + 1, At: now})}, nil
}

// ReportUndecryptable records what the canary found: the credential's
// version sealed under keyID does not open with the ring. Once per
// credential version and key id; a credential changed since is not
// reported (the canary read an old version).
func (c *Connection) ReportUndecryptable(org string, version int64, keyID string, now time.Time) []event.Change {
	ref := c.State.Credential
	if !c.Exists() || ref.State == CredentialDestroyed || ref.Version != version || ref.KeyID != keyID || slices.Contains(ref.Reported, keyID) {
		return nil
	}
	return []event.Change{event.New(CredentialUndecryptable, CredentialUndecryptableV1{ConnectionID: c.State.ConnectionID,
		Provider: c.State.Provider, CredentialID: ref.CredentialID, CredentialTable: CredentialTable,
		CredentialIdentity: CredentialIdentity(org, c.State.Provider, c.State.ConnectionID), KeyID: keyID, Version: version, At: now})}
}
