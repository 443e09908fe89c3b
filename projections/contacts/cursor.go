package contacts

import (
	"encoding/base64"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
)

// cursor is a keyset position in a list: the last item's id, and for a
// search its rank (a word match), that it was a part-of-a-word match, or
// that it was a similar-spelling match and its similarity.
// Opaque to clients (base64url of JSON).
type cursor struct {
	ID   string   `json:"id"`
	Rank *float32 `json:"r,omitempty"`
	Part bool     `json:"p,omitempty"`
	// Near: a similar-spelling match (with its similarity as Rank).
	Near bool `json:"n,omitempty"`
}

// plain is a cursor of a list that is not a search (or none).
func (c cursor) plain() bool { return c.Rank == nil && !c.Part && !c.Near }

func (c cursor) encode() string {
	raw, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(raw)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	if s == "" {
		return c, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(raw, &c) != nil {
		return cursor{}, badCursor()
	}
	if _, err := uuid.Parse(c.ID); err != nil || c.Rank != nil && c.Part || c.Near && (c.Part || c.Rank == nil) {
		return cursor{}, badCursor()
	}
	return c, nil
}

func badCursor() error { return errs.InvalidField("/cursor", "is not a cursor of this list") }
