package httpapi

import (
	"encoding/json"

	"github.com/platform/backend/internal/jsonenc"
)

// encodeInput writes the assembled input as json.Marshal does, byte for
// byte (the request fingerprint of an idempotency key hashes it, so a
// retry across versions must hash alike), without its reflection
// (jsonenc.AppendValue). An input it does not write itself (a float from
// the query) goes to json.Marshal, whole.
func encodeInput(v any) ([]byte, error) {
	if b, ok := jsonenc.AppendValue(make([]byte, 0, 256), v); ok {
		return b, nil
	}
	return json.Marshal(v)
}
