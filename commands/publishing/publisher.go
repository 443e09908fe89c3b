package publishing

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// PublisherConfig bounds the publisher.
type PublisherConfig struct {
	// SendTimeout bounds one network call (PUBLISHING_SEND_TIMEOUT, 8s): a
	// publish still unanswered then is unconfirmed. Below the timers' fire
	// timeout and the claim lease.
	SendTimeout time.Duration
	// ClaimLease is how long a claim without an outcome counts as in flight
	// (PUBLISHING_CLAIM_LEASE, 2m): older, its process died between the
	// claim and the record, and the reconciler reads the network.
	ClaimLease time.Duration
	// MaxAttempts bounds automatic attempts of one item (PUBLISHING_MAX_ATTEMPTS,
	// 3, the first included): a reconciled attempt that left nothing on the
	// network, a rate limit and a network fault are sent again until then,
	// and stay failed after.
	MaxAttempts int
	// RetryBackoff is the pause before the automatic retry of a rate
	// limited or faulted attempt, doubling per attempt up to RetryMaxBackoff
	// (PUBLISHING_RETRY_BACKOFF 30s, PUBLISHING_RETRY_MAX_BACKOFF 15m); a
	// network's own Retry-After or reset time is waited out when later.
	RetryBackoff    time.Duration
	RetryMaxBackoff time.Duration
	// Parallel is how many targets of one post are sent at once (4).
	Parallel int
	// RefreshBefore renews a token this long before it expires (5m).
	RefreshBefore time.Duration
}

func (c PublisherConfig) WithDefaults() PublisherConfig {
	if c.SendTimeout == 0 {
		c.SendTimeout = 8 * time.Second
	}
	if c.ClaimLease == 0 {
		c.ClaimLease = 2 * time.Minute
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 3
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = 30 * time.Second
	}
	if c.RetryMaxBackoff == 0 {
		c.RetryMaxBackoff = 15 * time.Minute
	}
	if c.Parallel == 0 {
		c.Parallel = 4
	}
	if c.RefreshBefore == 0 {
		c.RefreshBefore = 5 * time.Minute
	}
	return c
}

// MediaSource turns a post's media ids into what a network takes.
type MediaSource interface {
	Media(ctx context.Context, brand *domain.Brand, ids []string) ([]social.Media, error)
}

// Publisher sends claimed targets and records their outcomes: claim (a
// command), send (outside any transaction, with a key per target, item and
// attempt), record (a command that checks the attempt is still the
// current one). A crash between the send and the record leaves a claim
// that the reconciler settles by reading the network, never by sending.
type Publisher struct {
	h        *Handlers
	networks *Networks
	creds    *Credentials
	media    MediaSource
	cfg      PublisherConfig
	log      *slog.Logger
	// observe, when set, is told each item the network accepted (metrics,
	// the benchmark's lateness).
	observe func(post domain.Post, t domain.ClaimedTarget, published time.Time)
}

func NewPublisher(h *Handlers, networks *Networks, creds *Credentials, media MediaSource, cfg PublisherConfig, log *slog.Logger) *Publisher {
	return &Publisher{h: h, networks: networks, creds: creds, media: media, cfg: cfg.WithDefaults(), log: log}
}

// Observe registers a function told of every accepted item.
func (p *Publisher) Observe(f func(post domain.Post, t domain.ClaimedTarget, published time.Time)) {
	p.observe = f
}

// systemMeta is the meta of the publisher's commands on a post.
func systemMeta(organizationID, key string) commands.Meta {
	return commands.Meta{OrganizationID: organizationID, Actor: eventstore.Actor{ID: "publishing:publisher", Type: "system"},
		IdempotencyKey: key, RequestHash: eventstore.HashRequest([]byte(key)), CorrelationID: key}
}

// claim runs a claiming decision on a post and answers the claims it made
// (none when the command was a replay: its sends belong to the first run).
func (p *Publisher) claim(ctx context.Context, m commands.Meta, postID string,
	act func(*domain.Post) ([]event.Change, []domain.ClaimedTarget), opts ...commands.Option) (domain.Post, []domain.ClaimedTarget, error) {
	var claims []domain.ClaimedTarget
	res, err := p.h.runPost(ctx, m, postID, func(post *domain.Post) ([]event.Change, error) {
		var changes []event.Change
		changes, claims = act(post)
		return changes, nil
	}, opts...)
	if err != nil || res.Replayed {
		return res.Value, nil, err
	}
	return res.Value, claims, nil
}

// PublishDue is the publish timer's command: claim every due target of the
// post as it is now, then send them.
func (p *Publisher) PublishDue(ctx context.Context, m commands.Meta, postID string, opts ...commands.Option) error {
	post, claims, err := p.claim(ctx, m, postID, func(post *domain.Post) ([]event.Change, []domain.ClaimedTarget) {
		return post.Due(p.h.now())
	}, opts...)
	if err != nil {
		return err
	}
	p.sendAll(ctx, m.OrganizationID, post, claims)
	return nil
}

// ContinueThread claims and sends a target's next thread item.
func (p *Publisher) ContinueThread(ctx context.Context, m commands.Meta, postID, targetID string, item int) error {
	post, claims, err := p.claim(ctx, m, postID, func(post *domain.Post) ([]event.Change, []domain.ClaimedTarget) {
		return post.ClaimNext(targetID, item, p.h.now())
	})
	if err != nil {
		return err
	}
	p.sendAll(ctx, m.OrganizationID, post, claims)
	return nil
}

// sendAll sends a post's claims, a few at a time.
func (p *Publisher) sendAll(ctx context.Context, organizationID string, post domain.Post, claims []domain.ClaimedTarget) {
	sem := make(chan struct{}, p.cfg.Parallel)
	var wg sync.WaitGroup
	for _, c := range claims {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			p.send(ctx, organizationID, post, c)
		}()
	}
	wg.Wait()
}

// send publishes one claimed item and records what became of it.
func (p *Publisher) send(ctx context.Context, organizationID string, post domain.Post, c domain.ClaimedTarget) {
	sctx, cancel := context.WithTimeout(ctx, p.cfg.SendTimeout)
	defer cancel()
	brand, conn, net, connection, fail := p.prepare(sctx, post, c)
	if fail != nil {
		p.recordFailed(organizationID, post.PostID, c, *fail, 0)
		return
	}
	sp := social.Post{Text: c.Item.Text, ReplyTo: deref(c.Claim.ReplyTo), IdempotencyKey: c.Claim.IdempotencyKey}
	if c.Item.Link != nil {
		sp.Link = *c.Item.Link
	}
	if len(c.Item.Media) > 0 {
		media, err := p.mediaOf(sctx, brand, c.Item.Media)
		if err != nil {
			p.recordFailed(organizationID, post.PostID, c, domain.Failure{Code: "media_unavailable", Reason: "the post's media could not be read", Retryable: true}, 0)
			return
		}
		sp.Media = media
	}
	published, err := net.Publish(sctx, connection, sp)
	if err == nil {
		if p.observe != nil {
			p.observe(post, c, time.Now())
		}
		p.recordPublished(organizationID, post.PostID, c, published, conn.ConnectionID)
		return
	}
	p.recordError(organizationID, post.PostID, c, conn.ConnectionID, err)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (p *Publisher) mediaOf(ctx context.Context, brand *domain.Brand, ids []string) ([]social.Media, error) {
	if p.media == nil {
		return nil, errors.New("no media source")
	}
	return p.media.Media(ctx, brand, ids)
}

// prepare resolves the connection at brand level (the author's active
// connection for the network, else another active one of the brand), its
// adapter and its tokens, refreshed when they are about to expire.
func (p *Publisher) prepare(ctx context.Context, post domain.Post, c domain.ClaimedTarget) (*domain.Brand, domain.Connection, social.Network, social.Connection, *domain.Failure) {
	fail := func(code, reason string, retryable bool) (*domain.Brand, domain.Connection, social.Network, social.Connection, *domain.Failure) {
		return nil, domain.Connection{}, nil, social.Connection{}, &domain.Failure{Code: code, Reason: reason, Retryable: retryable}
	}
	net, ok := p.networks.Get(c.Network)
	if !ok {
		return fail("network_unavailable", "the network is not set up", true)
	}
	brand, err := p.h.BrandAny(ctx, post.BrandID)
	if err != nil {
		return fail(domain.FailureNoConnection, "the brand is gone", false)
	}
	conn, ok := brand.Resolve(c.Network, c.AccountID, c.PageID, post.AuthorID)
	if !ok {
		return fail(domain.FailureNoConnection, "the brand has no active connection for the network", false)
	}
	connection, err := p.Token(ctx, brand, conn, net)
	switch {
	case errors.Is(err, ErrUnreadable):
		return fail("token_unreadable", "the connection's token does not open with the key ring", true)
	case err != nil && outcome.Of(err) == outcome.Unauthorized:
		return fail("reconnect", "the connection's token could not be used", true)
	case err != nil:
		return fail("provider_fault", "the connection's token could not be used", true)
	}
	return brand, conn, net, connection, nil
}

// recordContext bounds a record: it runs even when the send's context
// ended (a timeout is an outcome to record, not a reason to lose it).
func recordContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 15*time.Second)
}

func outcomeKey(postID string, c domain.ClaimedTarget, what string) string {
	return c.Claim.IdempotencyKey + ":" + what + ":" + postID
}

func (p *Publisher) record(organizationID, postID string, c domain.ClaimedTarget, what string, act func(*domain.Post) ([]event.Change, error)) {
	ctx, cancel := recordContext()
	defer cancel()
	_, err := p.h.runPost(ctx, systemMeta(organizationID, outcomeKey(postID, c, what)), postID, act)
	if err != nil {
		// The claim stays; the reconciler settles it from the network.
		p.log.Warn("publishing: outcome not recorded; the reconciler will settle it", "post", postID, "target", c.TargetID,
			"item", c.Claim.Item, "attempt", c.Claim.Attempt, "outcome", what, "err", err)
	}
}

func (p *Publisher) recordPublished(organizationID, postID string, c domain.ClaimedTarget, pub social.Published, connectionID string) {
	o := domain.Outcome{PlatformPostID: pub.ID, ConnectionID: connectionID, At: p.h.now()}
	if pub.URL != "" {
		u := pub.URL
		o.URL = &u
	}
	p.record(organizationID, postID, c, "published", func(post *domain.Post) ([]event.Change, error) {
		return post.RecordPublished(c.TargetID, c.Claim.Item, c.Claim.Attempt, o, p.h.now())
	})
}

// recordFailed records a failed attempt; one the retry policy retries gets
// its time (wait: the network's own, 0 when it named none).
func (p *Publisher) recordFailed(organizationID, postID string, c domain.ClaimedTarget, f domain.Failure, wait time.Duration) {
	if f.Retryable {
		f.RetryAt = p.retryPolicy().At(f.Code, c.Claim.Tries(), wait, p.h.now())
	}
	p.record(organizationID, postID, c, "failed", func(post *domain.Post) ([]event.Change, error) {
		return post.RecordFailed(c.TargetID, c.Claim.Item, c.Claim.Attempt, f, p.h.now())
	})
}

// recordError records a network's error by kind: an unknown outcome is
// unconfirmed (reconciled before anything else), a refusal before any call
// or a cancellation before sending leaves nothing on the network.
func (p *Publisher) recordError(organizationID, postID string, c domain.ClaimedTarget, connectionID string, err error) {
	se, _ := social.AsError(err)
	reason := "failed"
	if se != nil && se.Reason != "" {
		reason = se.Reason
	}
	switch outcome.Of(err) {
	case social.KindOutcomeUnknown:
		var pending *string
		if se != nil && se.Pending != "" {
			pending = &se.Pending
		}
		id := connectionID
		p.record(organizationID, postID, c, "unconfirmed", func(post *domain.Post) ([]event.Change, error) {
			return post.RecordUnconfirmed(c.TargetID, c.Claim.Item, c.Claim.Attempt, pending, &id, reason, p.h.now())
		})
	case outcome.Canceled:
		p.record(organizationID, postID, c, "requeued", func(post *domain.Post) ([]event.Change, error) {
			return post.Requeue(c.TargetID, c.Claim.Item, c.Claim.Attempt, "canceled_before_send", p.h.now())
		})
	case outcome.Rejected:
		p.recordFailed(organizationID, postID, c, domain.Failure{Code: domain.FailureRejected, Reason: reason, Retryable: false}, 0)
	case outcome.Unauthorized:
		p.recordFailed(organizationID, postID, c, domain.Failure{Code: domain.FailureReconnect, Reason: reason, Retryable: true}, 0)
	case outcome.RateLimited:
		p.recordFailed(organizationID, postID, c, domain.Failure{Code: domain.FailureRateLimited, Reason: reason, Retryable: true},
			networkWait(se, p.h.now()))
	default:
		p.recordFailed(organizationID, postID, c, domain.Failure{Code: domain.FailureProviderFault, Reason: reason, Retryable: true}, 0)
	}
}

// errNoNetwork is answered for a network without an adapter.
var errNoNetwork = errs.Conflict("network_unavailable", "the network is not set up")
