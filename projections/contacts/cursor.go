package contacts

import (
	"encoding/base64"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
)

// cursor is a keyset position in a list: the last item's id, and for a
// search its rank. Opaque to clients (base64url of JSON).
type cursor struct {
	ID   string   `json:"id"`
	Rank *float32 `json:"r,omitempty"`
}

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
	if _, err := uuid.Parse(c.ID); err != nil {
		return cursor{}, badCursor()
	}
	return c, nil
}

func badCursor() error { return errs.InvalidField("/cursor", "is not a cursor of this list") }
