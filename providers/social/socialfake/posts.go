package socialfake

import (
	"slices"
	"time"
)

// Post is one post the fake accepted.
type Post struct {
	ID             string
	Account        string // the account it was posted as
	Text           string
	Title          string
	Link           string
	ReplyTo        string
	Media          []string // media ids or URLs, as the wire named them
	Visibility     string
	IdempotencyKey string
	URL            string
	Created        time.Time
}

// Accept stores a post and counts it. A post repeating an idempotency key
// of the same account is not stored again: the first is answered (Mastodon
// keeps keys for an hour; the fakes keep them for their life).
func (c *Core) Accept(p Post) (Post, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := ""
	if p.IdempotencyKey != "" {
		key = p.Account + "\x00" + p.IdempotencyKey
		if i, ok := c.byKey[key]; ok {
			return c.posts[i], false
		}
	}
	if p.Created.IsZero() {
		p.Created = c.Now()
	}
	c.posts = append(c.posts, p)
	if key != "" {
		c.byKey[key] = len(c.posts) - 1
	}
	return p, true
}

// Posts lists every accepted post in order.
func (c *Core) Posts() []Post {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.posts)
}

// PostCount is how many posts the fake accepted: publishing's tests prove
// exactly-once with it.
func (c *Core) PostCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.posts)
}

// Post finds an accepted post by id.
func (c *Core) Post(id string) (Post, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.posts {
		if p.ID == id {
			return p, true
		}
	}
	return Post{}, false
}

// Recent lists an account's posts created at or after since, newest first,
// at most limit (0: all): what a timeline endpoint answers.
func (c *Core) Recent(account string, since time.Time, limit int) []Post {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Post
	for i := len(c.posts) - 1; i >= 0; i-- {
		p := c.posts[i]
		if p.Account != account || p.Created.Before(since) {
			continue
		}
		out = append(out, p)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}
