package publishing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// Integrations runs the OAuth 2.0 authorization-code flow with PKCE and
// state that connects a network account to a brand.
type Integrations struct {
	h     *Handlers
	nets  *Networks
	creds *Credentials
	vault *Vault
	// CallbackBase is the publishing API's public base URL: the callback
	// is <base>/api/integrations/<platform>/callback.
	callbackBase string
	flowTTL      time.Duration
}

func NewIntegrations(h *Handlers, nets *Networks, creds *Credentials, vault *Vault, callbackBase string) *Integrations {
	return &Integrations{h: h, nets: nets, creds: creds, vault: vault, callbackBase: callbackBase, flowTTL: 10 * time.Minute}
}

// Connect is integrations.connect's input.
type Connect struct {
	Platform string `json:"platform"`
	BrandID  string `json:"brandId"`
}

// ConnectStarted is where the user's browser goes.
type ConnectStarted struct {
	AuthorizationURL string    `json:"authorization_url"`
	State            string    `json:"state"`
	ExpiresAt        time.Time `json:"expires_at"`
}

// CallbackURL is the redirect URI registered with the networks.
func (i *Integrations) CallbackURL(platform string) string {
	return i.callbackBase + "/api/integrations/" + url.PathEscape(platform) + "/callback"
}

func stateHash(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// Connect starts the flow: a provider that cannot be connected is refused
// (409) before any state or redirect exists.
func (i *Integrations) Connect(ctx context.Context, m commands.Meta, in Connect) (ConnectStarted, error) {
	if !i.nets.Connectable(in.Platform) {
		return ConnectStarted{}, errs.Conflict("provider_not_connectable", "this provider cannot be connected here (setup required or planned)")
	}
	net, _ := i.nets.Get(in.Platform)
	b, err := i.h.Brand(ctx, m.OrganizationID, in.BrandID)
	if err != nil {
		return ConnectStarted{}, err
	}
	flow, err := social.NewAuthFlow()
	if err != nil {
		return ConnectStarted{}, err
	}
	redirect := i.CallbackURL(in.Platform)
	authURL, err := net.AuthorizeURL(social.AuthRequest{RedirectURI: redirect, State: flow.State, CodeChallenge: flow.CodeChallenge})
	if err != nil {
		return ConnectStarted{}, err
	}
	hash := stateHash(flow.State)
	sealed, err := i.vault.seal([]byte(flow.CodeVerifier), []byte(hash))
	if err != nil {
		return ConnectStarted{}, err // no ring: 503 before any redirect exists
	}
	expires := i.h.now().Add(i.flowTTL)
	if _, err := i.h.pool.Exec(ctx, `INSERT INTO publishing_oauth_flows (state_hash, organization_id, brand_id, network, user_id,
		redirect_uri, key_id, verifier_nonce, sealed_verifier, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		hash, b.HomeOrganizationID, b.BrandID, in.Platform, m.Actor.ID, redirect, sealed.KeyID, sealed.Nonce, sealed.Sealed, expires); err != nil {
		return ConnectStarted{}, dbError(err)
	}
	return ConnectStarted{AuthorizationURL: authURL, State: flow.State, ExpiresAt: expires}, nil
}

// Callback is what the network redirects the browser to.
type Callback struct {
	Platform string
	Code     string
	State    string
	Error    string // the network's error parameter (the user denied)
}

// Connected is the callback's answer: the brand with its new connections.
type Connected struct {
	ConnectionID  string       `json:"connection_id"`  // the first account's
	ConnectionIDs []string     `json:"connection_ids"` // every account the grant covers, in the network's order
	Brand         domain.Brand `json:"brand"`
}

var errBadState = errs.InvalidField("/state", "unknown, used or expired connect attempt")

// Callback finishes a flow: the state is spent once (a replayed or forged
// callback finds nothing), the code is exchanged with the attempt's PKCE
// verifier, the tokens are sealed and the connection recorded on the brand.
func (i *Integrations) Callback(ctx context.Context, c Callback) (Connected, error) {
	if c.State == "" || len(c.State) > 200 {
		return Connected{}, errBadState
	}
	var org, brandID, network, userID, redirect string
	var sealed stored
	var expires time.Time
	hash := stateHash(c.State)
	err := i.h.pool.QueryRow(ctx, `DELETE FROM publishing_oauth_flows WHERE state_hash=$1 RETURNING organization_id, brand_id, network,
		user_id, redirect_uri, key_id, verifier_nonce, sealed_verifier, expires_at`, hash).
		Scan(&org, &brandID, &network, &userID, &redirect, &sealed.KeyID, &sealed.Nonce, &sealed.Sealed, &expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Connected{}, errBadState
	case err != nil:
		return Connected{}, dbError(err)
	case network != c.Platform || i.h.now().After(expires):
		return Connected{}, errBadState
	}
	if c.Error != "" {
		return Connected{}, errs.InvalidField("/error", "the network did not grant access")
	}
	if c.Code == "" || len(c.Code) > 2048 {
		return Connected{}, errs.InvalidField("/code", "missing or too long")
	}
	verifier, err := i.vault.open(sealed, []byte(hash))
	if err != nil {
		return Connected{}, err
	}
	net, ok := i.nets.Get(network)
	if !ok {
		return Connected{}, errNoNetwork
	}
	tok, err := net.Exchange(ctx, social.CodeExchange{Code: c.Code, CodeVerifier: string(verifier), RedirectURI: redirect})
	if err != nil {
		return Connected{}, networkError(err)
	}
	accounts, err := net.Accounts(ctx, tok)
	if err != nil {
		return Connected{}, networkError(err)
	}
	if len(accounts) == 0 {
		return Connected{}, errs.Conflict("no_account", "the network granted no account to publish as")
	}
	// Every account the grant covers is connected: the person chose them in
	// the network's own dialog (Facebook's page picker, LinkedIn's
	// organizations); one they do not want is disconnected like any other.
	b, err := i.h.BrandAny(ctx, brandID)
	if err != nil {
		return Connected{}, err
	}
	mode := "production"
	if n, _ := i.nets.byName[network]; n.Readiness == ReadinessSandbox {
		mode = "sandbox"
	}
	conns := make([]domain.Connection, 0, len(accounts))
	for _, account := range accounts {
		id := uuid.Must(uuid.NewV7()).String()
		for _, x := range b.Connections {
			if x.Network == network && x.AccountID == account.ID {
				id = x.ConnectionID
			}
		}
		if err := i.creds.Save(ctx, b.HomeOrganizationID, brandID, id, network, social.Connection{Token: tok, Account: account}); err != nil {
			return Connected{}, err
		}
		conn := domain.Connection{ConnectionID: id, Network: network, AccountID: account.ID, AccountName: account.Name,
			AccountKind: string(account.Kind), OwnerID: userID, Mode: mode, Scopes: tok.Scopes, Refreshable: tok.Refreshable(i.h.now())}
		if !tok.Expiry.IsZero() {
			e := tok.Expiry.UTC()
			conn.TokenValidUntil = &e
		}
		conns = append(conns, conn)
	}
	m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: userID, Type: "user"}, CorrelationID: "connect:" + hash[:16]}
	res, err := i.h.runBrand(ctx, m, brandID, func(b *domain.Brand) ([]event.Change, error) {
		var changes []event.Change
		for _, conn := range conns {
			c, _, err := b.Connect(conn, i.h.now())
			if err != nil {
				return nil, err
			}
			changes = append(changes, c...)
		}
		return changes, nil
	})
	if err != nil {
		return Connected{}, err
	}
	out := Connected{ConnectionID: conns[0].ConnectionID, Brand: res.Value}
	for _, c := range conns {
		out.ConnectionIDs = append(out.ConnectionIDs, c.ConnectionID)
	}
	return out, nil
}

// networkError is a network's failure during connect, as the API answers
// it: the network's own words are never shown.
func networkError(err error) error {
	switch outcome.Of(err) {
	case outcome.RateLimited:
		return errs.RateLimited(1)
	case outcome.Unauthorized, outcome.Rejected:
		return errs.Conflict("grant_refused", "the network refused the grant")
	}
	return errs.Unavailable("the network is unavailable", err)
}
