package publishing

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// PublisherConfig bounds the publisher.
type PublisherConfig struct {
	// SendTimeout bounds one network call (PUBLISHING_SEND_TIMEOUT, 8s): a
	// publish still unanswered then is unconfirmed. Below the claim lease.
	SendTimeout time.Duration
	// ClaimLease is how long an item's attempt counts as in flight without
	// an outcome (PUBLISHING_CLAIM_LEASE, 2m): after it, its worker died
	// between the send and the record, and the job's probe reads the
	// network.
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
	// Parallel is how many items a worker process sends at once (32).
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
		c.Parallel = 32
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

// KindPublish is the durable job that publishes one item of one target
// (domain.ItemJobID).
const KindPublish = "publishing.publish"

// ItemJob is a publish job's input: which item of which target. The copy is
// read from the post when the item is sent (an edit a moment before the
// publish time is what goes out).
type ItemJob struct {
	PostID   string `json:"post_id"`
	TargetID string `json:"target_id"`
	Item     int    `json:"item"`
}

// ItemPublished is a publish job's result: the network's post.
type ItemPublished struct {
	PlatformPostID string    `json:"platform_post_id"`
	URL            *string   `json:"url"`
	ConnectionID   string    `json:"connection_id"`
	At             time.Time `json:"at"`
}

// attemptDetail is what an unconfirmed send leaves for the probe.
type attemptDetail struct {
	Pending      *string `json:"pending"`
	ConnectionID string  `json:"connection_id"`
}

// Publisher publishes posts on the job kernel: a claim on the post (the
// publish timer, a thread's next item, a person's retry) puts an item on
// its way; its job (KindPublish, one per item) sends it with the attempt's
// idempotency key, or reconciles an attempt whose outcome is unknown by
// reading the network (Lookup), never by sending; the job's events are
// recorded on the post (Outcomes). The kernel brings the claim, the lease,
// the retries and the reconciliation.
type Publisher struct {
	h        *Handlers
	networks *Networks
	creds    *Credentials
	media    MediaSource
	cfg      PublisherConfig
	log      *slog.Logger
	kind     *jobs.Def[ItemJob, ItemPublished]
}

func NewPublisher(h *Handlers, networks *Networks, creds *Credentials, media MediaSource, cfg PublisherConfig, log *slog.Logger,
	cmds *jobs.Commands) (*Publisher, error) {
	p := &Publisher{h: h, networks: networks, creds: creds, media: media, cfg: cfg.WithDefaults(), log: log}
	var err error
	p.kind, err = jobs.Define(cmds, jobs.Spec[ItemJob, ItemPublished]{
		Name: KindPublish, Do: p.send, Probe: p.probe,
		Retry: domjobs.RetryPolicy{MaxAttempts: p.cfg.MaxAttempts, Backoff: p.cfg.RetryBackoff, MaxBackoff: p.cfg.RetryMaxBackoff},
		Lease: p.cfg.ClaimLease, Timeout: p.cfg.SendTimeout, ProbeTimeout: p.cfg.SendTimeout, Concurrency: p.cfg.Parallel,
		Changed: p.changed,
	})
	return p, err
}

// Kind is the publish job's kind (the module's Parts.Jobs).
func (p *Publisher) Kind() jobs.Kind { return p.kind }

// systemMeta is the meta of the publisher's commands on a post.
func systemMeta(organizationID, key string) commands.Meta {
	return commands.Meta{OrganizationID: organizationID, Actor: eventstore.Actor{ID: "publishing:publisher", Type: "system"},
		IdempotencyKey: key, RequestHash: eventstore.HashRequest([]byte(key)), CorrelationID: key}
}

// PublishDue is the publish timer's command: claim every due target of the
// post as it is now, then request the items' jobs at once (the ItemJobs
// reactor does it too, from the claims' events, should this process stop
// first: a publish is not late by a hop through the log).
func (p *Publisher) PublishDue(ctx context.Context, m commands.Meta, postID string, opts ...commands.Option) error {
	var claims []domain.ClaimedTarget
	res, err := p.h.runPost(ctx, m, postID, func(post *domain.Post) ([]event.Change, error) {
		var changes []event.Change
		changes, claims = post.Due(p.h.now())
		return changes, nil
	}, opts...)
	if err != nil || res.Replayed {
		return err
	}
	for _, c := range claims {
		key := m.IdempotencyKey + ":" + c.Claim.JobID
		if err := p.ensureItemJob(ctx, systemMeta(m.OrganizationID, key), postID, c.TargetID, c.Claim.Item, c.Claim.ClaimedAt); err != nil {
			p.log.Warn("publishing: item job not requested yet; the item_jobs reactor will", "post", postID, "target", c.TargetID, "err", err)
		}
	}
	return nil
}

// ensureItemJob makes sure the item claimed at claimedAt has its job on its
// way: requested when it has none, retried when it failed before the claim
// (a person's retry, a reschedule). A job that failed after the claim was
// retried for it already: it is not retried again.
func (p *Publisher) ensureItemJob(ctx context.Context, m commands.Meta, postID, targetID string, item int, claimedAt time.Time) error {
	id := domain.ItemJobID(postID, targetID, item)
	j, err := p.kind.Load(ctx, m.OrganizationID, id)
	switch {
	case errs.KindOf(err) == errs.KindNotFound:
		request := m
		request.IdempotencyKey, request.RequestHash = m.IdempotencyKey+":request", eventstore.HashRequest([]byte(m.IdempotencyKey+":request"))
		_, err = p.kind.Request(ctx, request, id, ItemJob{PostID: postID, TargetID: targetID, Item: item}, jobs.RequestOptions{})
		return err
	case err != nil:
		return err
	case j.State == domjobs.Failed && j.Failure != nil && j.Failure.At.Before(claimedAt):
		retry := m
		retry.IdempotencyKey, retry.RequestHash = m.IdempotencyKey+":retry", eventstore.HashRequest([]byte(m.IdempotencyKey+":retry"))
		_, err = p.kind.Retry(ctx, retry, id)
		return err
	}
	return nil
}

// send is the publish job's Do: one attempt at one item, with the
// attempt's idempotency key. It sends only while the target waits for the
// item (otherwise the post was rescheduled, edited or deleted since:
// superseded, nothing sent), and answers what became of the attempt in the
// kernel's words.
func (p *Publisher) send(ctx context.Context, a *jobs.Attempt[ItemJob]) (ItemPublished, error) {
	post, err := p.h.PostAny(ctx, a.Input.PostID)
	if err != nil {
		return ItemPublished{}, jobs.NotDone("the post could not be read") // nothing sent: again
	}
	t, ok := post.Target(a.Input.TargetID)
	if !ok || !post.Awaits(a.Input.TargetID, a.Input.Item) {
		return ItemPublished{}, jobs.Fail(domain.FailureSuperseded, "the target no longer waits for the item")
	}
	if legacyClaim(a, t) {
		// Claimed before item jobs: its send may have happened. Read the
		// network before anything is sent.
		return ItemPublished{}, jobs.Unconfirmed("claimed before item jobs", nil, 0)
	}
	brand, conn, net, connection, fail := p.prepare(ctx, *post, t)
	if fail != nil {
		return ItemPublished{}, fail
	}
	item := post.Items[a.Input.Item]
	sp := social.Post{Text: item.Text, IdempotencyKey: a.Key}
	if a.Input.Item > 0 {
		sp.ReplyTo = t.Published[a.Input.Item-1].PlatformPostID
	}
	if item.Link != nil {
		sp.Link = *item.Link
	}
	if len(item.Media) > 0 {
		media, err := p.mediaOf(ctx, brand, item.Media)
		if err != nil {
			return ItemPublished{}, jobs.Fail(domain.FailureMediaUnavailable, "the post's media could not be read")
		}
		sp.Media = media
	}
	published, err := net.Publish(ctx, connection, sp)
	if err == nil {
		out := ItemPublished{PlatformPostID: published.ID, ConnectionID: conn.ConnectionID, At: p.h.now()}
		if published.URL != "" {
			u := published.URL
			out.URL = &u
		}
		return out, nil
	}
	return ItemPublished{}, p.failure(err, conn.ConnectionID, net)
}

// legacyClaim: the job's first attempt is at an item claimed before item
// jobs (no job id): that claim's own send may have happened.
func legacyClaim(a *jobs.Attempt[ItemJob], t *domain.Target) bool {
	return a.Number == 1 && t.InFlight != nil && t.InFlight.JobID == "" && t.InFlight.Item == a.Input.Item
}

// failure reads a network's error as the attempt's outcome: an unknown one
// is unconfirmed (probed once the network can show it), a cancellation
// before sending left nothing, a rate limit or fault is retried by the
// policy, a refusal or a revoked grant is final.
func (p *Publisher) failure(err error, connectionID string, net social.Network) error {
	se, _ := social.AsError(err)
	reason := "failed"
	if se != nil && se.Reason != "" {
		reason = se.Reason
	}
	switch outcome.Of(err) {
	case social.KindOutcomeUnknown:
		d := attemptDetail{ConnectionID: connectionID}
		if se != nil && se.Pending != "" {
			d.Pending = &se.Pending
		}
		return jobs.Unconfirmed(reason, d, net.Info().Capabilities.ReconcileAfter)
	case outcome.Canceled:
		return jobs.NotDone("canceled_before_send")
	case outcome.Rejected:
		return jobs.Fail(domain.FailureRejected, reason)
	case outcome.Unauthorized:
		return jobs.Fail(domain.FailureReconnect, reason)
	case outcome.RateLimited:
		return jobs.Retryable(domain.FailureRateLimited, reason, networkWait(se, p.h.now()))
	}
	return jobs.Retryable(domain.FailureProviderFault, reason, 0)
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
func (p *Publisher) prepare(ctx context.Context, post domain.Post, t *domain.Target) (*domain.Brand, domain.Connection, social.Network, social.Connection, error) {
	fail := func(err error) (*domain.Brand, domain.Connection, social.Network, social.Connection, error) {
		return nil, domain.Connection{}, nil, social.Connection{}, err
	}
	net, ok := p.networks.Get(t.Network)
	if !ok {
		return fail(jobs.Fail(domain.FailureNetworkUnavailable, "the network is not set up"))
	}
	brand, err := p.h.BrandAny(ctx, post.BrandID)
	if err != nil {
		return fail(jobs.Fail(domain.FailureNoConnection, "the brand is gone"))
	}
	conn, ok := brand.Resolve(t.Network, t.AccountID, t.PageID, post.AuthorID)
	if !ok {
		return fail(jobs.Fail(domain.FailureNoConnection, "the brand has no active connection for the network"))
	}
	connection, err := p.Token(ctx, brand, conn, net)
	switch {
	case errors.Is(err, ErrUnreadable):
		return fail(jobs.Fail(domain.FailureTokenUnreadable, "the connection's token does not open with the key ring"))
	case err != nil && outcome.Of(err) == outcome.Unauthorized:
		return fail(jobs.Fail(domain.FailureReconnect, "the connection's token could not be used"))
	case err != nil:
		return fail(jobs.Retryable(domain.FailureProviderFault, "the connection's token could not be used", 0))
	}
	return brand, conn, net, connection, nil
}

// networkWait is how long a rate-limited network asked us to wait: its
// Retry-After, else the time until its reset (0 when it said neither).
func networkWait(e *social.Error, now time.Time) time.Duration {
	if e == nil {
		return 0
	}
	if e.RetryAfter > 0 {
		return e.RetryAfter
	}
	if !e.ResetAt.IsZero() {
		return max(e.ResetAt.Sub(now), 0)
	}
	return 0
}

// errNoNetwork is answered for a network without an adapter.
var errNoNetwork = errs.Conflict(domain.FailureNetworkUnavailable, "the network is not set up")
