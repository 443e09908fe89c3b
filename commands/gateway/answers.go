package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/internal/keyring"
)

// AnswerTTL is how long the answer of a call made with an Idempotency-Key
// is replayed (DESIGN.md's guarantee 2 for the gateway's calls): past it,
// the key is free and the same request is a new call.
const AnswerTTL = 24 * time.Hour

// Answers are the stored answers of the gateway's calls made with an
// Idempotency-Key: every call action (AI, email, instant messages,
// payments) takes the same path (http/gateway: idempotent). The key is
// claimed before the call, scoped to the organization as commands scope
// theirs; a repeat of the same request while the call runs is 409
// request_in_progress, another request under the key 422
// idempotency_key_reused, and a repeat after a 2xx answers that answer
// again, with no provider call and no usage event. A failed call releases
// the key: trying again is a new call (each attempt metered on its own).
//
// Answers are sealed with the platform's key ring (they hold prompts'
// answers, generated images, payments objects) and bound to their row
// (organization, key, request fingerprint); they expire after AnswerTTL,
// and the sweeper deletes expired rows.
//
// Why not the commands' es_idempotency: a call's key must be claimed before
// the provider is called (a command records its key with its events, after
// the work), its answer is no stream state, it is sealed, and it expires.
type Answers struct {
	h      *Handlers
	sealer *keyring.Sealer
}

// NewAnswers keeps answers in the handlers' database, sealed with the ring.
func NewAnswers(h *Handlers, sealer *keyring.Sealer) *Answers {
	return &Answers{h: h, sealer: sealer.For("gateway.answers")}
}

// Answer is a call's answer as it is kept: a JSON body (and the position of
// a command's events), or a stream's events as they were written.
type Answer struct {
	Body     json.RawMessage `json:"body,omitempty"`
	Position string          `json:"position,omitempty"`
	Events   []AnswerEvent   `json:"events,omitempty"`
}

// AnswerEvent is one server-sent event of a streamed answer (name "" for a
// plain message: the [DONE] terminator).
type AnswerEvent struct {
	Name string `json:"name,omitempty"`
	Data string `json:"data"`
}

// Claim is a running call's hold on its key: only it keeps an answer under
// the key or releases it.
type Claim struct {
	a                     *Answers
	org, key, hash, token string
}

// Rows' states.
const (
	answerRunning  = "running"
	answerAnswered = "answered"
)

// claimTries bounds the claim's statement: one that met a row committed
// after its snapshot sees nothing and is run again.
const claimTries = 3

// Claim takes the key for a call, or answers what it holds: the stored
// answer of the same request (to replay), 409 while the same request runs,
// 422 for another request. A running claim past its lease (its process died
// with the call) is taken over, unless this process still holds its answer
// for a database that was out (landings.go). No key ring: 503, as for the
// edge's credentials: an answer is never kept in the clear.
func (a *Answers) Claim(ctx context.Context, org, key, hash string) (*Claim, *Answer, error) {
	if a.sealer.Active() == "" {
		return nil, nil, errs.Unavailable("calls with an Idempotency-Key keep their answers sealed, and no key ring is configured (PLATFORM_KEYRING)", nil)
	}
	c := &Claim{a: a, org: org, key: key, hash: hash, token: uuid.Must(uuid.NewV7()).String()}
	now := a.h.now()
	for range claimTries {
		var mine bool
		var storedHash, state string
		var sealed keyring.Sealed
		var keyID *string
		err := a.h.pool.QueryRow(ctx, `WITH mine AS (
				INSERT INTO gateway_idempotency AS g (organization_id, key, request_hash, claim, state, created_at, expires_at)
				VALUES ($1, $2, $3, $4, 'running', $5, $6)
				ON CONFLICT (organization_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, claim = EXCLUDED.claim,
					state = 'running', key_id = NULL, nonce = NULL, answer = NULL, created_at = EXCLUDED.created_at,
					expires_at = EXCLUDED.expires_at
				WHERE g.expires_at <= $5 AND NOT (g.claim = ANY ($7))
				RETURNING true AS mine)
			SELECT true, '', '', NULL::text, NULL::bytea, NULL::bytea FROM mine
			UNION ALL
			SELECT false, request_hash, state, key_id, nonce, answer FROM gateway_idempotency
			WHERE organization_id = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM mine)`,
			org, key, hash, c.token, now, now.Add(a.h.cfg.ReservationTTL), a.h.landings.names(heldKey)).
			Scan(&mine, &storedHash, &state, &keyID, &sealed.Nonce, &sealed.Ciphertext)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			continue // the row came or went after the statement's snapshot
		case err != nil:
			return nil, nil, dbError(err)
		case mine:
			return c, nil, nil
		case storedHash != hash:
			return nil, nil, errs.IdempotencyMismatch()
		case state == answerRunning:
			e := errs.Conflict("request_in_progress", "a call with this Idempotency-Key is still running; retry later for its answer")
			e.RetryAfterSeconds = 1
			return nil, nil, e
		}
		if keyID != nil {
			sealed.KeyID = *keyID
		}
		answer, err := a.open(c, sealed)
		return nil, answer, err
	}
	return nil, nil, errs.Unavailable("the Idempotency-Key could not be claimed; retry", nil)
}

// open reads a stored answer. One that does not open (its key left the
// ring before it expired) cannot be replayed, and calling again under the
// key could pay twice: the caller is told to use a new key.
func (a *Answers) open(c *Claim, sealed keyring.Sealed) (*Answer, error) {
	plain, err := a.sealer.Open(sealed, c.additionalData())
	if err != nil {
		a.h.log.Error("gateway: a stored answer does not open", "organization_id", c.org, "key_id", sealed.KeyID, "err", err)
		return nil, errs.Conflict("stored_answer_unreadable",
			"the answer stored under this Idempotency-Key cannot be read (its key left the key ring); call again with a new key")
	}
	var answer Answer
	if err := json.Unmarshal(plain, &answer); err != nil {
		return nil, fmt.Errorf("gateway: a stored answer: %w", err)
	}
	return &answer, nil
}

// additionalData binds a sealed answer to its row and request.
func (c *Claim) additionalData() []byte {
	return []byte(c.org + "\x00" + c.key + "\x00" + c.hash)
}

// Keep stores the call's answer under the key for AnswerTTL. With the
// database out it is held in this process until it lands; meanwhile a
// repeat is 409 (the key stays running), never a second call.
func (c *Claim) Keep(ctx context.Context, answer Answer) {
	plain, err := json.Marshal(answer)
	if err == nil {
		var sealed keyring.Sealed
		if sealed, err = c.a.sealer.Seal(plain, c.additionalData()); err == nil {
			expires := c.a.h.now().Add(AnswerTTL)
			err = c.a.h.landings.land(ctx, heldKey+c.token, func(ctx context.Context) error {
				_, err := c.a.h.pool.Exec(ctx, `UPDATE gateway_idempotency SET state = 'answered', key_id = $4, nonce = $5, answer = $6,
					expires_at = $7 WHERE organization_id = $1 AND key = $2 AND claim = $3`,
					c.org, c.key, c.token, sealed.KeyID, sealed.Nonce, sealed.Ciphertext, expires)
				return dbError(err)
			}, nil)
		}
	}
	if err != nil {
		// The answer went out, the key stays running until its lease ends.
		c.a.h.log.Error("gateway: a call's answer was not kept under its Idempotency-Key", "organization_id", c.org, "err", err)
	}
}

// Release frees the key of a call that did not answer 2xx: the same
// request may be tried again, as a new call.
func (c *Claim) Release(ctx context.Context) {
	err := c.a.h.landings.land(ctx, heldKey+c.token, func(ctx context.Context) error {
		_, err := c.a.h.pool.Exec(ctx, `DELETE FROM gateway_idempotency WHERE organization_id = $1 AND key = $2 AND claim = $3`,
			c.org, c.key, c.token)
		return dbError(err)
	}, nil)
	if err != nil {
		c.a.h.log.Error("gateway: an Idempotency-Key was not released; it frees itself when its lease ends", "organization_id", c.org, "err", err)
	}
}

// answersBatch bounds one delete of expired answers.
const answersBatch = 1000

// SweepAnswers deletes the stored answers that expired before now, and the
// claims whose lease ended (their process died with the call), except the
// ones whose write this process holds; it returns how many it deleted.
func (h *Handlers) SweepAnswers(ctx context.Context, now time.Time) (int, error) {
	deleted := 0
	for {
		tag, err := h.pool.Exec(ctx, `DELETE FROM gateway_idempotency WHERE ctid IN (SELECT ctid FROM gateway_idempotency
			WHERE expires_at <= $1 AND NOT (claim = ANY ($2)) LIMIT $3)`, now, h.landings.names(heldKey), answersBatch)
		if err != nil {
			return deleted, dbError(err)
		}
		deleted += int(tag.RowsAffected())
		if tag.RowsAffected() < answersBatch {
			return deleted, nil
		}
	}
}
