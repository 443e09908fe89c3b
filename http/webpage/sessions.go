package webpage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/platform/backend/domain/errs"
)

// Sessions is the identity service's sign-in contract as the pages use it:
// no page invents authentication of its own. A password sign-in is
// identity's POST /login (its access token is the page session's
// credential; its refresh token travels in identity's own refresh cookie,
// rotated through POST /refresh when the access token has expired), an API
// key is checked by the same validator as every call.
type Sessions interface {
	SignIn(ctx context.Context, email, password, organizationID string) (Session, error)
	Refresh(ctx context.Context, refreshToken string) (Session, error)
	SignOut(ctx context.Context, accessToken string) error
	// Call sends a request to the identity service's API with a credential
	// (onboarding: organizations and keys).
	Call(ctx context.Context, credential, method, path string, body, out any) error
}

// Session is a started or refreshed identity session.
type Session struct {
	AccessToken     string    `json:"access_token"`
	AccessExpiresAt time.Time `json:"access_expires_at"`
	ExpiresAt       time.Time `json:"expires_at"`
	RefreshToken    string    `json:"refresh_token"`
	OrganizationID  string    `json:"organization_id"`
}

// IdentityClient speaks the identity service's HTTP contract at Base.
type IdentityClient struct {
	Base   string
	Client *http.Client
}

var _ Sessions = IdentityClient{}

func (c IdentityClient) SignIn(ctx context.Context, email, password, organizationID string) (Session, error) {
	in := map[string]any{"email": email, "password": password, "returnRefreshToken": true}
	if organizationID != "" {
		in["organizationId"] = organizationID
	}
	var s Session
	err := c.Call(ctx, "", http.MethodPost, "/login", in, &s)
	return s, err
}

func (c IdentityClient) Refresh(ctx context.Context, refreshToken string) (Session, error) {
	var s Session
	err := c.Call(ctx, "", http.MethodPost, "/refresh", map[string]any{"refreshToken": refreshToken, "returnRefreshToken": true}, &s)
	return s, err
}

func (c IdentityClient) SignOut(ctx context.Context, accessToken string) error {
	return c.Call(ctx, accessToken, http.MethodPost, "/logout", nil, nil)
}

func (c IdentityClient) Call(ctx context.Context, credential, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.Base, "/")+path, rd)
	if err != nil {
		return err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if credential != "" {
		req.Header.Set("Authorization", "Bearer "+credential)
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return errs.Unavailable("the identity service is unreachable", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return errs.Unavailable("the identity service's answer was cut off", err)
	}
	if res.StatusCode >= 300 {
		return ProblemError("the identity service", res.StatusCode, res.Header, raw)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// problem is a platform problem body as the pages read it.
type problem struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
	Errors []struct {
		Pointer string `json:"pointer"`
		Detail  string `json:"detail"`
	} `json:"errors"`
}

// ProblemError is a platform service's problem answer (status, its
// Retry-After and its body) as the error the pages show: the same kind, code
// and pointers, so a page answers with the status the API did. who names the
// service in the messages of answers that carry none.
func ProblemError(who string, status int, header http.Header, raw []byte) error {
	var p problem
	_ = json.Unmarshal(raw, &p)
	switch status {
	case http.StatusUnauthorized:
		return errs.AuthenticationRequired(firstOf(p.Detail, "sign in again"))
	case http.StatusForbidden:
		return errs.PermissionDenied(firstOf(p.Detail, "not allowed"))
	case http.StatusNotFound:
		return errs.NotFound("the resource")
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		fields := make([]errs.Field, 0, len(p.Errors))
		for _, f := range p.Errors {
			fields = append(fields, errs.Field{Pointer: f.Pointer, Detail: f.Detail})
		}
		if len(fields) == 0 {
			fields = append(fields, errs.Field{Pointer: "", Detail: firstOf(p.Detail, "invalid input")})
		}
		return errs.Invalid(fields...)
	case http.StatusConflict:
		return errs.Conflict(firstOf(p.Code, "conflict"), firstOf(p.Detail, "conflict"))
	case http.StatusTooManyRequests:
		after, err := strconv.Atoi(header.Get("Retry-After"))
		if err != nil || after <= 0 {
			after = 30
		}
		return errs.RateLimited(after)
	}
	return errs.Unavailable(who+" answered "+http.StatusText(status), nil)
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// RefreshGrace is how long a rotated refresh token still yields the session
// its rotation made (refresher).
const RefreshGrace = 30 * time.Second

// RefreshOnce wraps identity's sessions so that a page session's refresh
// token is rotated once for all the pages that present it together (the
// services' Deps wrap theirs with it once, at build).
func RefreshOnce(s Sessions) Sessions { return newRefresher(s) }

// refresher rotates a page session's refresh token once for all the pages
// that present it together. Identity ends a session whose retired refresh
// token comes back (a copied token), and the pages have no script to
// coordinate: tabs restored at once after the access token expired each
// send the same refresh cookie, and without this the second one would end
// the session the first just refreshed. The pages presenting a token while
// its rotation runs, or within RefreshGrace after it, get that rotation's
// session. Only successful rotations are kept (a token that fails is asked
// again), keyed by the token's hash, for RefreshGrace: what a browser still
// holding the old cookie may send in that time.
type refresher struct {
	Sessions // sign-in, sign-out and calls go straight through
	sessions Sessions
	mu       sync.Mutex
	calls    map[[sha256.Size]byte]*refreshCall
}

// refreshCall is one rotation: done closes when it has ended (at).
type refreshCall struct {
	done chan struct{}
	at   time.Time
	s    Session
	err  error
}

func newRefresher(s Sessions) *refresher {
	return &refresher{Sessions: s, sessions: s, calls: map[[sha256.Size]byte]*refreshCall{}}
}

func (r *refresher) Refresh(ctx context.Context, refreshToken string) (Session, error) {
	key := sha256.Sum256([]byte(refreshToken))
	r.mu.Lock()
	now := time.Now()
	for k, c := range r.calls {
		if !c.at.IsZero() && now.Sub(c.at) > RefreshGrace {
			delete(r.calls, k)
		}
	}
	c, ok := r.calls[key]
	if !ok {
		c = &refreshCall{done: make(chan struct{})}
		r.calls[key] = c
		r.mu.Unlock()
		s, err := r.sessions.Refresh(ctx, refreshToken)
		r.mu.Lock()
		c.s, c.err, c.at = s, err, time.Now()
		if err != nil {
			delete(r.calls, key)
		}
		close(c.done)
		r.mu.Unlock()
		return s, err
	}
	r.mu.Unlock()
	select {
	case <-c.done:
		return c.s, c.err
	case <-ctx.Done():
		return Session{}, errs.Unavailable("the session's refresh did not finish", ctx.Err())
	}
}
