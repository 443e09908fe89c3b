package gateway

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/domain/errs"
)

// A nullable member of a PATCH has three states: absent (keep), null
// (clear), a value (set). Inputs hold it as raw JSON; these read it.

// nullableString reads a nullable string member.
func nullableString(raw json.RawMessage, pointer string) (v *string, set bool, err error) {
	if len(raw) == 0 {
		return nil, false, nil
	}
	if string(raw) == "null" {
		return nil, true, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false, errs.InvalidField(pointer, "must be a string or null")
	}
	return &s, true, nil
}

// nullableTime reads a nullable RFC 3339 member.
func nullableTime(raw json.RawMessage, pointer string) (v *time.Time, set bool, err error) {
	s, set, err := nullableString(raw, pointer)
	if err != nil || s == nil {
		return nil, set, err
	}
	t, perr := time.Parse(time.RFC3339Nano, *s)
	if perr != nil {
		return nil, false, errs.InvalidField(pointer, "must be an RFC 3339 date-time or null")
	}
	return &t, true, nil
}
