package gateway

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// Keyed calls: the in-process client honours an idempotency key as the
// HTTP call actions do (http/gateway: idempotent), through the same store
// (Answers): the key is claimed before the call, the first answer is kept
// (sealed), the same request under the key answers it again with no
// provider call and no usage event, a failed call frees the key, another
// request under the key is 422 idempotency_key_reused and a repeat while
// the first runs 409 request_in_progress. A context's durable job gives
// each outside call a key derived from the job and its attempt.

// SetAnswers gives the client the store of kept answers (the gateway's
// module does once it is made). Without it a keyed call is refused (503):
// a key is never silently ignored.
func (c *Client) SetAnswers(a *Answers) { c.answers = a }

// KeyedRequest names one keyed call: its key and its request's
// fingerprint (RequestFingerprint).
type KeyedRequest struct {
	Key, Hash string
}

// RequestFingerprint is the fingerprint a keyed in-process call is kept
// under: its action and its input (the key itself is no part of it).
func RequestFingerprint(action string, in any) string {
	b, _ := json.Marshal(in)
	return eventstore.HashRequest([]byte("client"), []byte(action), b)
}

// FirstKept answers the index of the first of calls whose answer is kept
// under its key for the same request (-1: none): a job's later attempt
// replays the answer an earlier attempt paid for instead of calling again.
func (c *Client) FirstKept(ctx context.Context, organizationID string, calls []KeyedRequest) (int, error) {
	if c.answers == nil || len(calls) == 0 {
		return -1, nil
	}
	keys := make([]string, len(calls))
	for i, k := range calls {
		keys[i] = k.Key
	}
	kept := map[string]string{}
	rows, err := c.h.pool.Query(ctx, `SELECT key, request_hash FROM gateway_idempotency WHERE organization_id = $1 AND key = ANY($2)
		AND state = 'answered' AND expires_at > $3`, organizationID, keys, c.h.now())
	if err != nil {
		return -1, dbError(err)
	}
	for rows.Next() {
		var k, h string
		if err := rows.Scan(&k, &h); err != nil {
			rows.Close()
			return -1, dbError(err)
		}
		kept[k] = h
	}
	if err := rows.Err(); err != nil {
		return -1, dbError(err)
	}
	for i, k := range calls {
		if h, ok := kept[k.Key]; ok && h == k.Hash {
			return i, nil
		}
	}
	return -1, nil
}

// keyed runs call under key: a kept answer of the same request is decoded
// and answered (replayed true) without calling; otherwise the call runs
// and its answer is kept on success, the key freed on failure. encode and
// decode turn the answer into the kept body and back.
func keyed[T any](ctx context.Context, c *Client, organizationID, key, action string, in any, call func(context.Context) (T, error),
	encode func(T) ([]byte, error), decode func([]byte) (T, error)) (T, bool, error) {
	var zero T
	if c.answers == nil {
		return zero, false, errs.Unavailable("the gateway keeps no answers in this process: a keyed call cannot be made", nil)
	}
	claim, stored, err := c.answers.Claim(ctx, organizationID, key, RequestFingerprint(action, in))
	if err != nil {
		return zero, false, err
	}
	if stored != nil {
		out, err := decode(stored.Body)
		return out, true, err
	}
	// The call outlives its caller, as a keyed HTTP call does: its answer
	// is kept for the retry rather than paid for twice.
	ctx = context.WithoutCancel(ctx)
	out, err := call(ctx)
	if err != nil {
		claim.Release(ctx)
		return zero, false, err
	}
	body, err := encode(out)
	if err != nil {
		claim.Release(ctx)
		return zero, false, err
	}
	claim.Keep(ctx, Answer{Body: body})
	return out, false, nil
}

// keptImages is an Images answer as kept: the images' bytes beside it (the
// HTTP answer carries them as base64 in its own shape).
type keptImages struct {
	Images Images   `json:"images"`
	Data   [][]byte `json:"data"`
}

func encodeImages(out Images) ([]byte, error) {
	k := keptImages{Images: out, Data: make([][]byte, len(out.Images))}
	for i, img := range out.Images {
		k.Data[i] = img.Data
	}
	return json.Marshal(k)
}

func decodeImages(b []byte) (Images, error) {
	var k keptImages
	if err := json.Unmarshal(b, &k); err != nil {
		return Images{}, err
	}
	for i := range k.Images.Images {
		if i < len(k.Data) {
			k.Images.Images[i].Data = k.Data[i]
		}
	}
	return k.Images, nil
}

func encodeJSON[T any](v T) ([]byte, error) { return json.Marshal(v) }

func decodeJSON[T any](b []byte) (T, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}
