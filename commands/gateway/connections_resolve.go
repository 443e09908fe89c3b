package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/email/postmark"
	"github.com/platform/backend/providers/email/resend"
	"github.com/platform/backend/providers/message/whatsapp"
	"github.com/platform/backend/providers/payments/stripe"
)

// Adapters build a provider's adapter from a connection's secrets and
// settings, against the operator's base URL for the provider ("" the
// provider's public API). A new provider is one more entry (and a row of
// domain.ConnectionProviders).
var Adapters = map[string]func(base string, s Secrets, settings map[string]string, timeout time.Duration) (Link, error){
	domain.ProviderEmailA: func(base string, s Secrets, _ map[string]string, timeout time.Duration) (Link, error) {
		c, err := postmark.New(postmark.Config{BaseURL: base, ServerToken: s["server_token"], Timeout: timeout})
		return Link{Email: c}, err
	},
	domain.ProviderEmailB: func(base string, s Secrets, _ map[string]string, timeout time.Duration) (Link, error) {
		c, err := resend.New(resend.Config{BaseURL: base, APIKey: s["api_key"], Timeout: timeout})
		return Link{Email: c}, err
	},
	domain.ProviderMessageA: func(base string, s Secrets, settings map[string]string, timeout time.Duration) (Link, error) {
		c, err := whatsapp.New(whatsapp.Config{BaseURL: base, AccessToken: s["access_token"], PhoneNumberID: settings["phone_number_id"],
			Timeout: timeout})
		return Link{Message: c}, err
	},
	domain.ProviderPaymentsA: func(base string, s Secrets, _ map[string]string, timeout time.Duration) (Link, error) {
		c, err := stripe.New(stripe.Config{BaseURL: base, SecretKey: s["secret_key"], Timeout: timeout})
		return Link{Payments: c}, err
	},
}

// connectionRow is a connection as the index holds it, with its sealed
// credential.
type connectionRow struct {
	ID, Org, Provider, Kind, Status string
	AppID, WebhookURL               *string
	Settings                        map[string]string
	Credential                      credentialRow
}

const connectionSelect = `SELECT i.connection_id, i.organization_id, i.provider, i.kind, i.status, i.app_id, i.webhook_url, i.settings::text,
	c.credential_id, c.version, c.key_id, c.nonce, c.ciphertext
	FROM gateway_connection_index i JOIN gateway_credentials c ON c.connection_id = i.connection_id`

func scanConnection(row pgx.Row) (connectionRow, error) {
	var r connectionRow
	var settings string
	err := row.Scan(&r.ID, &r.Org, &r.Provider, &r.Kind, &r.Status, &r.AppID, &r.WebhookURL, &settings,
		&r.Credential.CredentialID, &r.Credential.Version, &r.Credential.Sealed.KeyID, &r.Credential.Sealed.Nonce, &r.Credential.Sealed.Ciphertext)
	if err != nil {
		return r, err
	}
	r.Credential.ConnectionID, r.Credential.Org = r.ID, r.Org
	return r, json.Unmarshal([]byte(settings), &r.Settings)
}

// connectionByID reads one connection, whatever its organization (the
// caller checks that): false when there is none or it has no credential.
func (e *Edge) connectionByID(ctx context.Context, id string) (connectionRow, bool, error) {
	r, err := scanConnection(e.h.pool.QueryRow(ctx, connectionSelect+` WHERE i.connection_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, dbError(err)
}

// inUseKey and inUse are an organization's connection of a provider in
// use as ownConnection answers it (found false: none).
type inUseKey struct{ org, provider string }

type inUse struct {
	row   connectionRow
	found bool
}

// WatchConnections serves ownConnection from memory kept coherent by w:
// every append to a connection stream notifies (the module makes the
// store announce domain.StreamConnection), and any of them drops every
// organization's memory, so a connection created, chosen, changed,
// disconnected, deleted or given a new credential stops or starts serving
// on every process within w's bound (on the process that changed it, at
// once). Connections change rarely; every call reads one. Call before
// serving.
func (e *Edge) WatchConnections(w *eventstore.HeadWatch) {
	e.inUse = eventstore.NewMemo[inUseKey, inUse](w, domain.ConnectionStreamID(""))
}

// ConnectionReads counts ownConnection's answers from memory and from the
// database (zero without WatchConnections).
func (e *Edge) ConnectionReads() (memory, database int64) {
	if e.inUse == nil {
		return 0, 0
	}
	return e.inUse.Reads()
}

// ownConnection is the organization's connection of a provider in use (its
// own key: BYOK), if any: of its active connections of the provider, the
// one an administrator chose last (connections.choose, or created while
// none was in use). One never chosen is used only by calls that name it.
func (e *Edge) ownConnection(ctx context.Context, org, provider string) (connectionRow, bool, error) {
	if e.inUse == nil {
		return e.readOwnConnection(ctx, org, provider)
	}
	v, err := e.inUse.Get(ctx, inUseKey{org, provider}, func(ctx context.Context) (inUse, error) {
		r, ok, err := e.readOwnConnection(ctx, org, provider)
		return inUse{r, ok}, err
	})
	return v.row, v.found, err
}

// readOwnConnection is ownConnection read from the write-side index.
func (e *Edge) readOwnConnection(ctx context.Context, org, provider string) (connectionRow, bool, error) {
	r, err := scanConnection(e.h.pool.QueryRow(ctx, connectionSelect+` WHERE i.organization_id = $1 AND i.provider = $2
		AND i.status = 'active' AND i.chosen_at IS NOT NULL ORDER BY i.chosen_at DESC, i.connection_id DESC LIMIT 1`, org, provider))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, dbError(err)
}

// Resolve is the connection a call of an organization to a provider runs
// on: the one it names (its own, active), else its connection of the
// provider in use (ownConnection; BYOK: charged the service fee), else the platform's
// (configured keys, or the sandbox's fakes). org "" resolves a named
// connection of any organization (service identities).
func (e *Edge) Resolve(ctx context.Context, org, provider, connectionID string) (Link, error) {
	if connectionID != "" {
		r, ok, err := e.connectionByID(ctx, connectionID)
		switch {
		case err != nil:
			return Link{}, err
		case !ok || (org != "" && r.Org != org):
			return Link{}, errs.InvalidField("/connection_id", "no such connection")
		case provider != "" && r.Provider != provider:
			return Link{}, errs.InvalidField("/connection_id", "the connection is not one of "+provider)
		case r.Status != domain.StatusActive:
			return Link{}, errs.Conflict("connection_"+r.Status, "the connection is "+r.Status)
		}
		return e.link(r)
	}
	if org != "" {
		r, ok, err := e.ownConnection(ctx, org, provider)
		if err != nil {
			return Link{}, err
		}
		if ok {
			return e.link(r)
		}
	}
	if l, ok := e.platform[provider]; ok {
		return l, nil
	}
	return Link{}, errs.InvalidField("/provider", fmt.Sprintf("no connection to %s: create one (connections.create)", provider))
}

// link builds (or reuses, per credential version) the adapter of an
// organization's email, message or payments connection.
func (e *Edge) link(r connectionRow) (Link, error) {
	build, ok := Adapters[r.Provider]
	if !ok {
		return Link{}, errs.InvalidField("/provider", r.Provider+" does not send email, messages or payments")
	}
	c, err := e.built(r, func(s Secrets) (cachedLink, error) {
		l, err := build(e.cfg.BaseURLs[r.Provider], s, r.Settings, e.h.cfg.CallTimeout)
		l.ConnectionID, l.OrganizationID, l.Provider, l.BYOK, l.Settings = r.ID, r.Org, r.Provider, true, r.Settings
		return cachedLink{link: l}, err
	})
	return c.link, err
}

// built answers a connection's adapter as cached at its credential's
// version, else opens the credential and builds it.
func (e *Edge) built(r connectionRow, build func(Secrets) (cachedLink, error)) (cachedLink, error) {
	e.mu.Lock()
	cached, ok := e.links[r.ID]
	e.mu.Unlock()
	if ok && cached.version == r.Credential.Version {
		return cached, nil
	}
	secrets, err := e.open(r.Credential)
	if err != nil {
		return cachedLink{}, undecryptable(r, err)
	}
	c, err := build(secrets)
	if err != nil {
		// The adapter refused the credential's shape (a Stripe key without
		// sk_): the connection's problem, said without the secret.
		return cachedLink{}, errs.Conflict("connection_misconfigured", "the connection's credential is not usable by "+r.Provider)
	}
	c.version = r.Credential.Version
	e.mu.Lock()
	e.links[r.ID] = c
	e.mu.Unlock()
	return c, nil
}

// undecryptable is the answer of a call whose connection's credential the
// ring cannot open (the canary reports it too).
func undecryptable(r connectionRow, err error) error {
	if errors.Is(err, keyring.ErrNoKey) || errors.Is(err, keyring.ErrOpen) {
		return errs.Conflict("credential_undecryptable", "the connection's credential cannot be decrypted with the key ring (key "+
			r.Credential.Sealed.KeyID+"): set new credentials")
	}
	return err
}

// forget drops a connection's cached adapters (its credential or status
// changed).
func (e *Edge) forget(connectionID string) {
	e.mu.Lock()
	delete(e.links, connectionID)
	e.mu.Unlock()
}

var _ AIConnections = (*Edge)(nil)

// AI resolves an AI call's connection: the organization's own connection
// of the provider in use (BYOK), else the platform's.
func (e *Edge) AI(ctx context.Context, org string, provider ai.ProviderID) (AIConnection, error) {
	if e.aiOwn != nil && org != "" {
		r, ok, err := e.ownConnection(ctx, org, string(provider))
		if err != nil {
			return AIConnection{}, err
		}
		if ok {
			return e.aiLink(r)
		}
	}
	if e.ai == nil {
		return AIConnection{}, errs.Unavailable("no AI provider is configured", nil)
	}
	return e.ai.AI(ctx, org, provider)
}

func (e *Edge) aiLink(r connectionRow) (AIConnection, error) {
	c, err := e.built(r, func(s Secrets) (cachedLink, error) {
		c, err := e.aiOwn(r.Provider, s["api_key"], r.Settings)
		if err != nil {
			return cachedLink{}, err
		}
		c.ID, c.BYOK, c.Sandbox = r.ID, true, false
		link := Link{ConnectionID: r.ID, OrganizationID: r.Org, Provider: r.Provider, BYOK: true}
		c.Provider = refusedWatch{Provider: c.Provider, refused: func() { e.deauthorizeRefused(context.Background(), link, "") }}
		return cachedLink{ai: c}, nil
	})
	return c.ai, err
}
