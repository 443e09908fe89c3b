package gateway

import (
	"encoding/json"

	"github.com/platform/backend/domain/errs"
)

// jsonEnum is a string schema of the given values.
func jsonEnum(values []string) (string, error) {
	raw, err := json.Marshal(map[string]any{"type": "string", "enum": values})
	return string(raw), err
}

// errsInvalid is a 422 at pointer.
func errsInvalid(pointer, detail string) error { return errs.InvalidField(pointer, detail) }
