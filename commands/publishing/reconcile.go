package publishing

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/commands/jobs"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/providers/social"
)

// probe is the publish job's Probe: an attempt whose outcome is unknown
// (its worker died between the send and the record: its lease ran out; or
// the network did not answer: unconfirmed) is settled by reading the
// network, after the network's ReconcileAfter, never by sending. Found: the
// attempt published the item. Not found: nothing is there, and a new
// attempt (a new key) may go. A network that says it failed the post:
// rejected. Pending, or a read that fails: asked again later.
func (p *Publisher) probe(ctx context.Context, a *jobs.Attempt[ItemJob]) (ItemPublished, bool, error) {
	post, err := p.h.PostAny(ctx, a.Input.PostID)
	if err != nil {
		return ItemPublished{}, false, err
	}
	t, ok := post.Target(a.Input.TargetID)
	if !ok || a.Input.Item >= len(post.Items) {
		return ItemPublished{}, false, jobs.Fail(domain.FailureSuperseded, "the target is gone")
	}
	net, ok := p.networks.Get(t.Network)
	if !ok {
		return ItemPublished{}, false, errNoNetwork
	}
	since, key := a.ClaimedAt, a.Key
	if legacyClaim(a, t) { // what the claim made before item jobs sent
		since, key = t.InFlight.ClaimedAt, t.InFlight.IdempotencyKey
	}
	if wait := net.Info().Capabilities.ReconcileAfter; p.h.now().Sub(since) < wait {
		return ItemPublished{}, false, jobs.Later("the network may not show the post yet")
	}
	brand, err := p.h.BrandAny(ctx, post.BrandID)
	if err != nil {
		return ItemPublished{}, false, err
	}
	var d attemptDetail
	_ = json.Unmarshal(a.Detail, &d)
	var conn domain.Connection
	if d.ConnectionID != "" {
		conn, ok = brand.Connection(d.ConnectionID)
	} else if t.InFlight != nil && t.InFlight.ConnectionID != nil {
		conn, ok = brand.Connection(*t.InFlight.ConnectionID)
	} else {
		conn, ok = brand.Resolve(t.Network, t.AccountID, t.PageID, post.AuthorID)
	}
	if !ok {
		// Nobody can look: the connection is gone. Fail without sending;
		// a person decides (retry once connected again).
		return ItemPublished{}, false, jobs.Fail(domain.FailureUnverifiable, "the attempt's connection is gone")
	}
	connection, err := p.Token(ctx, brand, conn, net)
	if err != nil {
		return ItemPublished{}, false, err
	}
	item := post.Items[a.Input.Item]
	q := social.Query{Text: item.Text, Since: since, IdempotencyKey: key}
	if d.Pending != nil {
		q.Pending = *d.Pending
	} else if t.InFlight != nil && t.InFlight.Pending != nil && t.InFlight.Item == a.Input.Item {
		q.Pending = *t.InFlight.Pending
	}
	if a.Input.Item > 0 && len(t.Published) >= a.Input.Item {
		q.ReplyTo = t.Published[a.Input.Item-1].PlatformPostID
	}
	if item.Link != nil {
		q.Text = social.TextWithLink(social.Post{Text: item.Text, Link: *item.Link})
	}
	res, err := net.Lookup(ctx, connection, q)
	if err != nil {
		return ItemPublished{}, false, err
	}
	switch res.State {
	case social.LookupFound:
		out := ItemPublished{PlatformPostID: res.Post.ID, ConnectionID: conn.ConnectionID, At: p.h.now()}
		if res.Post.URL != "" {
			u := res.Post.URL
			out.URL = &u
		}
		return out, true, nil
	case social.LookupFailed:
		reason := "processing_failed"
		if res.Err != nil && res.Err.Reason != "" {
			reason = res.Err.Reason
		}
		return ItemPublished{}, false, jobs.Fail(domain.FailureRejected, reason)
	case social.LookupNotFound:
		return ItemPublished{}, false, nil
	}
	return ItemPublished{}, false, jobs.Later("the network's work is pending")
}
