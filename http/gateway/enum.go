package gateway

import "encoding/json"

// jsonEnum is a string schema of the given values.
func jsonEnum(values []string) (string, error) {
	raw, err := json.Marshal(map[string]any{"type": "string", "enum": values})
	return string(raw), err
}
