package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// StreamConnection is one provider connection of an organization: its
// lifecycle and its credential's metadata (the ciphertext lives in the
// write-side credential table, never in an event). The stream id is
// ConnectionStreamID(connection id); connection ids are made by the gateway
// and unique across organizations, so a webhook route names one.
const StreamConnection = "gateway.connection"

// Connection event types.
const (
	ConnectionCreated      = "gateway.connection.created"
	ConnectionUpdated      = "gateway.connection.updated"
	ConnectionDisconnected = "gateway.connection.disconnected" // -> gateway.provider.disconnected
	ConnectionExpiring     = "gateway.connection.expiring"     // -> gateway.provider.connection_expiring
	// ConnectionChosen: an administrator chose the connection as the one
	// the organization's calls to its provider use.
	ConnectionChosen = "gateway.connection.chosen"
)

// ConnectionEventTypes are the connections area's event types (the
// credential's events ride on the same stream: credentials.go).
var ConnectionEventTypes = []string{ConnectionCreated, ConnectionUpdated, ConnectionDisconnected, ConnectionExpiring, ConnectionChosen}

// ConnectionStreamID is the stream of a connection.
func ConnectionStreamID(connectionID string) string { return "connection:" + connectionID }

// Connection statuses: active, and the three of seed 001's
// gateway.provider.disconnected.
const (
	StatusActive       = "active"
	StatusDisconnected = "disconnected"
	StatusDeauthorized = "deauthorized"
	StatusDeleted      = "deleted"
)

// ConnectionStatuses lists them (schemas).
var ConnectionStatuses = []string{StatusActive, StatusDisconnected, StatusDeauthorized, StatusDeleted}

// ExpiryWindow is seed 001's warning window before a token expires.
const ExpiryWindow = 7 * 24 * time.Hour

// Bounds of a connection's members.
const (
	MaxSecretLength = 4096 // a credential member (keys and tokens are far shorter)
	maxSettingValue = 64
)

// ConnectionV1 is a connection as its events carry it, whole: never a
// secret, only the credential's reference and key id.
type ConnectionV1 struct {
	ConnectionID   string            `json:"connection_id"`
	Provider       string            `json:"provider"`
	Kind           string            `json:"kind"`
	Name           string            `json:"name"`
	Status         string            `json:"status"`
	StatusReason   string            `json:"status_reason"`
	AppID          *string           `json:"app_id"`
	WebhookURL     *string           `json:"webhook_url"`
	TokenExpiresAt *time.Time        `json:"token_expires_at"`
	BYOK           bool              `json:"byok"`
	Settings       map[string]string `json:"settings"`
	Credential     CredentialRef     `json:"credential"`
	// WarnedExpiry is the expiry gateway.connection.expiring was last
	// emitted for (once per connection and expiry).
	WarnedExpiry *time.Time `json:"warned_expiry"`
	// Choice is when an administrator last chose the connection as its
	// organization's connection of its provider. Absent on connections
	// recorded before choices existed (LoadConnection fills it: Chosen).
	Choice    *ConnectionChoice `json:"choice,omitempty"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
}

// ConnectionChoice is a connection's standing as its provider's connection:
// of an organization's active connections of a provider, calls that name
// none use the one chosen last (chosen_at); one never chosen (null) is used
// only by calls that name it.
type ConnectionChoice struct {
	ChosenAt *time.Time `json:"chosen_at"`
}

// Chosen is when the connection was last chosen (nil: never). A connection
// recorded before choices existed counts as chosen when it was created:
// the newest active connection was the one in use then, and stays so.
func (s ConnectionV1) Chosen() *time.Time {
	if s.Choice == nil {
		at := s.CreatedAt
		return &at
	}
	return s.Choice.ChosenAt
}

// ConnectionChosenV1 is a connection chosen as its provider's.
type ConnectionChosenV1 struct {
	ConnectionID string    `json:"connection_id"`
	Provider     string    `json:"provider"`
	At           time.Time `json:"at"`
}

// ConnectionDisconnectedV1 is a connection that stopped being usable.
type ConnectionDisconnectedV1 struct {
	ConnectionID string    `json:"connection_id"`
	Provider     string    `json:"provider"`
	Status       string    `json:"status"` // disconnected, deauthorized, deleted
	Reason       string    `json:"reason"`
	At           time.Time `json:"at"`
}

// ConnectionExpiringV1 is a token entering the warning window.
type ConnectionExpiringV1 struct {
	ConnectionID string    `json:"connection_id"`
	Provider     string    `json:"provider"`
	ExpiresAt    time.Time `json:"expires_at"`
	At           time.Time `json:"at"`
}

// Connection is the write model of a connection stream.
type Connection struct {
	State ConnectionV1
}

// Exists reports whether the stream holds a connection.
func (c *Connection) Exists() bool { return c.State.ConnectionID != "" }

// connectionFolds apply each event type to the write model.
var connectionFolds = map[string]func(c *Connection, r event.Recorded) error{
	event.SnapshotType: func(c *Connection, r event.Recorded) error { return json.Unmarshal(r.Payload, &c.State) },
	ConnectionCreated:  foldWhole,
	ConnectionUpdated:  foldWhole,
	ConnectionDisconnected: func(c *Connection, r event.Recorded) error {
		p, err := event.Decode[ConnectionDisconnectedV1](r)
		c.State.Status, c.State.StatusReason, c.State.UpdatedAt = p.Status, p.Reason, p.At
		if p.Status == StatusDeleted {
			c.State.Credential.State = CredentialDestroyed
		}
		return err
	},
	ConnectionExpiring: func(c *Connection, r event.Recorded) error {
		p, err := event.Decode[ConnectionExpiringV1](r)
		at := p.ExpiresAt
		c.State.WarnedExpiry = &at
		return err
	},
	ConnectionChosen: func(c *Connection, r event.Recorded) error {
		p, err := event.Decode[ConnectionChosenV1](r)
		at := p.At
		c.State.Choice = &ConnectionChoice{ChosenAt: &at}
		return err
	},
	CredentialStored:        foldCredential,
	CredentialRotated:       foldCredential,
	CredentialUndecryptable: foldCredential,
}

func foldWhole(c *Connection, r event.Recorded) error {
	p, err := event.Decode[ConnectionV1](r)
	if err != nil {
		return err
	}
	cred := c.State.Credential
	c.State = p
	if cred.CredentialID != "" {
		c.State.Credential = cred // the credential's own events keep it current
	}
	return nil
}

// LoadConnection folds a connection stream. A connection recorded before
// choices existed gets its choice made explicit (chosen when created), so
// every later event and snapshot of it carries it.
func LoadConnection(history []event.Recorded) (*Connection, error) {
	c := &Connection{}
	for _, r := range history {
		if f, ok := connectionFolds[r.Type]; ok {
			if err := f(c, r); err != nil {
				return nil, fmt.Errorf("%s: %w", r.Type, err)
			}
		}
	}
	if c.Exists() && c.State.Choice == nil {
		c.State.Choice = &ConnectionChoice{ChosenAt: c.State.Chosen()}
	}
	return c, nil
}

// ConnectionInput is what create and update decide on (update: nil keeps
// a member; SetAppID & co. say a nullable member was named).
type ConnectionInput struct {
	Provider       string
	Name           *string
	AppID          *string
	SetAppID       bool
	WebhookURL     *string
	SetWebhookURL  bool
	TokenExpiresAt *time.Time
	SetExpiry      bool
	Settings       map[string]string
	// SecretMembers are the credential members given (names only: the
	// values never reach the domain).
	SecretMembers []string
}

// CreateConnection decides a new connection and its first credential
// (sealed by the command under keyID), and warns at once when its token is
// already inside the expiry window. choose: the organization has no
// connection of the provider in use, so this one is chosen at once (the
// first connection works as soon as it exists); otherwise it waits to be
// chosen and the calls stay where they are.
func (c *Connection) Create(id, credentialID, keyID string, in ConnectionInput, choose bool, now time.Time) ([]event.Change, error) {
	if c.Exists() {
		return nil, errs.Conflict("connection_exists", "the connection exists already")
	}
	spec, ok := ConnectionProviders[in.Provider]
	if !ok {
		return nil, errs.InvalidField("/provider", "unknown provider")
	}
	name := ""
	if in.Name != nil {
		name = *in.Name
	}
	next := ConnectionV1{ConnectionID: id, Provider: in.Provider, Kind: spec.Kind, Name: name, Status: StatusActive, BYOK: true,
		Settings: map[string]string{}, Choice: &ConnectionChoice{}, CreatedAt: now, UpdatedAt: now}
	if choose {
		next.Choice.ChosenAt = &now
	}
	fields := applyConnection(&next, spec, in, true)
	fields = checkSecrets(fields, spec, in.SecretMembers, true)
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	changes := []event.Change{event.New(ConnectionCreated, next)}
	cred := credentialStored(id, credentialID, keyID, 1, in.SecretMembers, now)
	changes = append(changes, cred)
	next.Credential = CredentialRef{CredentialID: credentialID, KeyID: keyID, Version: 1, Members: sortedCopy(in.SecretMembers),
		State: CredentialActive, UpdatedAt: now, Reported: []string{}}
	return append(changes, expiring(next, now)...), nil
}

// Update changes a connection's plain members; a moved token expiry inside
// the window warns at once (the daily scan finds the others).
func (c *Connection) Update(in ConnectionInput, now time.Time) ([]event.Change, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	next := c.State
	next.Settings = cloneSettings(next.Settings)
	fields := applyConnection(&next, ConnectionProviders[next.Provider], in, false)
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if sameConnection(c.State, next) {
		return nil, nil
	}
	next.UpdatedAt = now
	return append([]event.Change{event.New(ConnectionUpdated, next)}, expiring(next, now)...), nil
}

// Choose makes the connection the one its organization's calls to its
// provider use when they name none (it stays so until another is chosen;
// while it is not active, the one chosen before it is used). Only an active
// connection can be chosen. Choosing it again moves its choice to now.
func (c *Connection) Choose(now time.Time) ([]event.Change, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if c.State.Status != StatusActive {
		return nil, errs.Conflict("connection_"+c.State.Status, "the connection is "+c.State.Status+": set new credentials to reconnect it first")
	}
	return []event.Change{event.New(ConnectionChosen, ConnectionChosenV1{ConnectionID: c.State.ConnectionID, Provider: c.State.Provider,
		At: now})}, nil
}

// Disconnect moves the connection to disconnected, deauthorized or deleted
// (gateway.provider.disconnected). Deleted is final and destroys the
// credential; the same status again changes nothing.
func (c *Connection) Disconnect(status, reason string, now time.Time) ([]event.Change, error) {
	if !c.Exists() {
		return nil, errs.NotFound("connection")
	}
	if !slices.Contains([]string{StatusDisconnected, StatusDeauthorized, StatusDeleted}, status) {
		return nil, errs.InvalidField("/status", "must be disconnected, deauthorized or deleted")
	}
	fields := text.Line(nil, "/reason", reason, text.MaxReason)
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if c.State.Status == status || c.State.Status == StatusDeleted {
		return nil, nil
	}
	return []event.Change{event.New(ConnectionDisconnected, ConnectionDisconnectedV1{ConnectionID: c.State.ConnectionID,
		Provider: c.State.Provider, Status: status, Reason: reason, At: now})}, nil
}

// WarnExpiring emits gateway.connection.expiring when the connection is
// active and its token expires within the window of now, once per
// expiry: the daily scan's decision, and create's and update's.
func (c *Connection) WarnExpiring(now time.Time) []event.Change {
	return expiring(c.State, now)
}

func expiring(s ConnectionV1, now time.Time) []event.Change {
	exp := s.TokenExpiresAt
	if s.Status != StatusActive || exp == nil || exp.After(now.Add(ExpiryWindow)) ||
		(s.WarnedExpiry != nil && s.WarnedExpiry.Equal(*exp)) {
		return nil
	}
	return []event.Change{event.New(ConnectionExpiring, ConnectionExpiringV1{ConnectionID: s.ConnectionID, Provider: s.Provider,
		ExpiresAt: *exp, At: now})}
}

// usable refuses a missing or deleted connection.
func (c *Connection) usable() error {
	if !c.Exists() {
		return errs.NotFound("connection")
	}
	if c.State.Status == StatusDeleted {
		return errs.Conflict("connection_deleted", "the connection was deleted")
	}
	return nil
}

// applyConnection writes the input's members into next and returns what
// is wrong with them.
func applyConnection(next *ConnectionV1, spec ProviderSpec, in ConnectionInput, creating bool) []errs.Field {
	var fields []errs.Field
	if in.Name != nil {
		next.Name = *in.Name
	}
	if creating || in.Name != nil {
		if strings.TrimSpace(next.Name) == "" {
			fields = append(fields, errs.Field{Pointer: "/name", Detail: "must not be empty"})
		}
		fields = text.Line(fields, "/name", next.Name, text.MaxTitle)
	}
	if in.SetAppID {
		next.AppID = in.AppID
		if in.AppID != nil {
			fields = text.Line(fields, "/app_id", *in.AppID, text.MaxID)
		}
	}
	if in.SetWebhookURL {
		next.WebhookURL = in.WebhookURL
		if in.WebhookURL != nil {
			fields = append(fields, checkWebhookURL(*in.WebhookURL)...)
		}
	}
	if in.SetExpiry {
		next.TokenExpiresAt = nil
		if in.TokenExpiresAt != nil {
			t := in.TokenExpiresAt.UTC()
			next.TokenExpiresAt = &t
		}
	}
	for k, v := range in.Settings {
		pattern, ok := spec.Settings[k]
		switch {
		case !ok:
			fields = append(fields, errs.Field{Pointer: "/settings/" + k, Detail: "this provider takes no such setting"})
		case len(v) > maxSettingValue || !pattern.MatchString(v):
			fields = append(fields, errs.Field{Pointer: "/settings/" + k, Detail: "must match " + pattern.String()})
		default:
			next.Settings[k] = v
		}
	}
	for _, k := range spec.RequiredSettings {
		if next.Settings[k] == "" && creating {
			fields = append(fields, errs.Field{Pointer: "/settings/" + k, Detail: "this provider needs it"})
		}
	}
	return fields
}

// checkWebhookURL is the syntax of a relay target; the outbound policy
// (internal addresses) is the command's, at store time and at dial time.
func checkWebhookURL(raw string) []errs.Field {
	return text.URL(nil, "/webhook_url", raw, text.URLRules{Detail: "must be an absolute http(s) URL without credentials"})
}

// checkSecrets: every required member given (all of them on a create or a
// replacement), none unknown to the provider.
func checkSecrets(fields []errs.Field, spec ProviderSpec, given []string, replace bool) []errs.Field {
	for _, m := range given {
		if !slices.Contains(spec.Secrets, m) && !slices.Contains(spec.Optional, m) {
			fields = append(fields, errs.Field{Pointer: "/credentials/" + m, Detail: "this provider takes no such credential member"})
		}
	}
	if replace {
		for _, m := range spec.Secrets {
			if !slices.Contains(given, m) {
				fields = append(fields, errs.Field{Pointer: "/credentials/" + m, Detail: "required by this provider"})
			}
		}
	}
	return fields
}

func sameConnection(a, b ConnectionV1) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func cloneSettings(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sortedCopy is a sorted copy, never nil (answers show [] rather than null).
func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}
