package publishing

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Connection states.
const (
	ConnectionActive = "active"
	// ConnectionReconnect: the grant is gone; the user must connect again.
	ConnectionReconnect = "reconnect_required"
)

// Brand is a publishing brand: its organization and its network
// connections. Its streams (the brand's, its posts', media's and seeds')
// belong in the event store to the organization that created it
// (HomeOrganizationID); which organization may use it is OrganizationID,
// moved by a transfer without touching a stream.
type Brand struct {
	BrandID            string `json:"id"`
	Name               string `json:"name"`
	OrganizationID     string `json:"organization_id"`
	HomeOrganizationID string `json:"-"`
	CreatedBy          string `json:"created_by"`
	// BrandKitID is the brand kit (the brand service's) the brand's content
	// follows; null: none.
	BrandKitID  *string      `json:"brand_kit_id"`
	Connections []Connection `json:"connections"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`
}

// brandRecord is the brand as events carry it (the home organization is
// internal: the read model and the commands need it, clients do not).
type brandRecord struct {
	Brand
	Home string `json:"home_organization_id"`
}

// Connection is a connected network account of a brand. Its tokens are
// kept apart, sealed (never in an event).
type Connection struct {
	ConnectionID string `json:"connection_id"`
	Network      string `json:"network"`
	AccountID    string `json:"account_id"`
	AccountName  string `json:"account_name"`
	AccountKind  string `json:"account_kind"`
	OwnerID      string `json:"owner_id"` // the user who connected it
	// Mode is how it was connected: production (the real network) or
	// sandbox (a local fake of it).
	Mode   string   `json:"mode"`
	Scopes []string `json:"scopes"`
	// TokenValidUntil is the access token's expiry (nil: it does not expire).
	TokenValidUntil *time.Time `json:"token_valid_until"`
	Refreshable     bool       `json:"refreshable"`
	Status          string     `json:"status"`
	LastError       *string    `json:"last_error"`
	ConnectedAt     time.Time  `json:"connected_at"`
	RefreshedAt     *time.Time `json:"refreshed_at"`
}

// BrandEvent is the payload of every brand event.
type BrandEvent struct {
	BrandID      string      `json:"brand_id"`
	ConnectionID string      `json:"connection_id,omitempty"`
	From         string      `json:"from_organization_id,omitempty"`
	To           string      `json:"to_organization_id,omitempty"`
	Reason       string      `json:"reason,omitempty"`
	At           time.Time   `json:"occurred_at"`
	Brand        brandRecord `json:"brand"`
}

// LoadBrand folds a brand's history: every event carries the whole brand
// after it, so only the last record is decoded. A snapshot
// (event.SnapshotType, first when present) is BrandSnapshot's record.
func LoadBrand(history []event.Recorded) (*Brand, error) {
	b := &Brand{}
	if len(history) == 0 {
		return b, nil
	}
	r := history[len(history)-1]
	var rec brandRecord
	if r.Type == event.SnapshotType {
		if err := json.Unmarshal(r.Payload, &rec); err != nil {
			return nil, fmt.Errorf("decode the brand's snapshot: %w", err)
		}
	} else {
		var e BrandEvent
		if err := json.Unmarshal(r.Payload, &e); err != nil {
			return nil, fmt.Errorf("decode %s: %w", r.Type, err)
		}
		rec = e.Brand
	}
	*b = rec.Brand
	b.HomeOrganizationID = rec.Home
	return b, nil
}

// BrandSnapshot is what a brand's stream head keeps (commands.SnapshotsOf):
// the brand with its home organization, which its answer leaves out.
func BrandSnapshot(b Brand) any { return brandRecord{Brand: b, Home: b.HomeOrganizationID} }

// DecodeBrandEvent reads a brand event's payload with its home organization.
func DecodeBrandEvent(payload []byte) (BrandEvent, Brand, error) {
	var e BrandEvent
	if err := json.Unmarshal(payload, &e); err != nil {
		return e, Brand{}, err
	}
	b := e.Brand.Brand
	b.HomeOrganizationID = e.Brand.Home
	return e, b, nil
}

func (b *Brand) Exists() bool { return b.BrandID != "" }

// State is the brand as answered.
func (b *Brand) State() Brand {
	out, _ := clone(*b)
	out.HomeOrganizationID = b.HomeOrganizationID
	if out.Connections == nil {
		out.Connections = []Connection{}
	}
	return out
}

func (b *Brand) emit(typ string, e BrandEvent, now time.Time) event.Change {
	b.UpdatedAt = now
	e.BrandID, e.At = b.BrandID, now
	e.Brand = brandRecord{Brand: b.State(), Home: b.HomeOrganizationID}
	return event.New(typ, e)
}

// Create makes a brand in the caller's organization.
func (b *Brand) Create(id, name, organizationID, createdBy string, now time.Time) ([]event.Change, error) {
	if b.Exists() {
		return nil, errs.Conflict("brand_exists", "the brand already exists")
	}
	fields := text.Line(nil, "/name", name, text.MaxTitle)
	if name == "" {
		fields = append(fields, errs.Field{Pointer: "/name", Detail: "must not be empty"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	*b = Brand{BrandID: id, Name: name, OrganizationID: organizationID, HomeOrganizationID: organizationID,
		CreatedBy: createdBy, Connections: []Connection{}, CreatedAt: now}
	return []event.Change{b.emit(BrandCreated, BrandEvent{}, now)}, nil
}

// Transfer moves the brand to another organization; its id, posts and
// connections stay as they are.
func (b *Brand) Transfer(to string, now time.Time) ([]event.Change, error) {
	if !b.Exists() {
		return nil, errs.NotFound("brand")
	}
	if to == b.OrganizationID {
		return nil, nil
	}
	from := b.OrganizationID
	b.OrganizationID = to
	return []event.Change{b.emit(BrandTransferred, BrandEvent{From: from, To: to}, now)}, nil
}

// SetBrandKit names the brand's kit (nil or "": none); the caller checked
// the kit is one the caller sees.
func (b *Brand) SetBrandKit(kitID *string, now time.Time) ([]event.Change, error) {
	if !b.Exists() {
		return nil, errs.NotFound("brand")
	}
	if kitID != nil && *kitID == "" {
		kitID = nil
	}
	if kitID == nil && b.BrandKitID == nil || kitID != nil && b.BrandKitID != nil && *kitID == *b.BrandKitID {
		return nil, nil
	}
	b.BrandKitID = kitID
	return []event.Change{b.emit(BrandKitSet, BrandEvent{}, now)}, nil
}

// Connect records a connected account; the same network account connected
// again replaces its connection (keeping its id).
func (b *Brand) Connect(c Connection, now time.Time) ([]event.Change, string, error) {
	if !b.Exists() {
		return nil, "", errs.NotFound("brand")
	}
	c.Status, c.LastError, c.ConnectedAt, c.RefreshedAt = ConnectionActive, nil, now, nil
	if c.Scopes == nil {
		c.Scopes = []string{}
	}
	if i := slices.IndexFunc(b.Connections, func(x Connection) bool { return x.Network == c.Network && x.AccountID == c.AccountID }); i >= 0 {
		c.ConnectionID = b.Connections[i].ConnectionID
		b.Connections[i] = c
	} else {
		b.Connections = append(b.Connections, c)
	}
	return []event.Change{b.emit(ConnectionConnected, BrandEvent{ConnectionID: c.ConnectionID}, now)}, c.ConnectionID, nil
}

// Refreshed records a renewed token.
func (b *Brand) Refreshed(connectionID string, validUntil *time.Time, scopes []string, refreshable bool, now time.Time) ([]event.Change, error) {
	c, ok := b.connection(connectionID)
	if !ok {
		return nil, errs.NotFound("connection")
	}
	c.TokenValidUntil, c.Refreshable, c.Status, c.LastError, c.RefreshedAt = validUntil, refreshable, ConnectionActive, nil, &now
	if scopes != nil {
		c.Scopes = scopes
	}
	return []event.Change{b.emit(ConnectionRefreshed, BrandEvent{ConnectionID: connectionID}, now)}, nil
}

// RefreshFailed records a refresh that did not work. A transient error (the
// network is down, rate limited) keeps the connection active: the token may
// still work and the next refresh will try again. Only a revoked grant needs
// the user.
func (b *Brand) RefreshFailed(connectionID, reason string, transient bool, now time.Time) ([]event.Change, error) {
	c, ok := b.connection(connectionID)
	if !ok {
		return nil, errs.NotFound("connection")
	}
	r := reason
	c.LastError = &r
	if !transient {
		c.Status = ConnectionReconnect
	}
	return []event.Change{b.emit(ConnectionRefreshFailed, BrandEvent{ConnectionID: connectionID, Reason: reason}, now)}, nil
}

func (b *Brand) connection(id string) (*Connection, bool) {
	for i := range b.Connections {
		if b.Connections[i].ConnectionID == id {
			return &b.Connections[i], true
		}
	}
	return nil, false
}

// Connection finds a connection by id.
func (b *Brand) Connection(id string) (Connection, bool) {
	c, ok := b.connection(id)
	if !ok {
		return Connection{}, false
	}
	return *c, true
}

// Resolve picks the connection a target publishes through, at brand level:
// among the brand's active connections of the network (of the target's
// explicit account or page, when it names one), the post author's own,
// else the first other one connected.
func (b *Brand) Resolve(network string, accountID, pageID *string, authorID string) (Connection, bool) {
	var pick *Connection
	for i := range b.Connections {
		c := &b.Connections[i]
		if c.Network != network || c.Status != ConnectionActive {
			continue
		}
		// A page (Facebook, LinkedIn organization) is what the connection
		// publishes as, so it names the account when given.
		want := accountID
		if pageID != nil {
			want = pageID
		}
		if want != nil && c.AccountID != *want {
			continue
		}
		if c.OwnerID == authorID {
			return *c, true
		}
		if pick == nil {
			pick = c
		}
	}
	if pick == nil {
		return Connection{}, false
	}
	return *pick, true
}
