package eventstore

import "encoding/json"

// encodeJSON is json.Marshal(v), the store's encoding of a decision's
// result, snapshot and event payloads. commands.Run and commands.Execute
// hand those over already encoded (a json.RawMessage made by json.Marshal),
// and json.Marshal would scan every byte of one again (compaction through
// its scanner, a function call a byte, and HTML escaping) only to copy it
// unchanged: measured ~6 µs of Go an incident update, for its three values.
// A json.RawMessage that json.Marshal would write as it is is returned as
// it is, sharing its bytes (a decision is read-only once decided); any other
// value, and a json.RawMessage json.Marshal would change or refuse, goes to
// json.Marshal, for its bytes and its error (TestEncodeJSONIsMarshal).
func encodeJSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok && marshalsAsIs(raw) {
		return raw, nil
	}
	return json.Marshal(v)
}

// marshalsAsIs reports whether json.Marshal writes raw unchanged: one valid
// JSON value (validJSON: json.Valid's verdict), no blank outside its
// strings (compaction drops it), and no byte json.Marshal escapes inside one
// (<, > and & as \u003c..., U+2028 and U+2029 as \u2028 and \u2029).
func marshalsAsIs(raw json.RawMessage) bool {
	if raw == nil || !validJSON(raw) { // nil encodes as null
		return false
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		for i < len(raw) && !marshalChanges[raw[i]] { // the run of bytes that stay
			i++
		}
		if i == len(raw) {
			break
		}
		switch raw[i] {
		case '\\': // in a string (raw is valid): the escaped byte is no quote
			i++
		case '"':
			inString = !inString
		case ' ', '\t', '\n', '\r':
			if !inString {
				return false
			}
		case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8 {
				return false
			}
		default: // <, > and &
			return false
		}
	}
	return true
}

// marshalChanges are the bytes marshalsAsIs looks at: the string's bounds
// and escapes, the blanks, and the first bytes of what json.Marshal escapes.
var marshalChanges = func() (t [256]bool) {
	for _, c := range []byte{'"', '\\', ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2} {
		t[c] = true
	}
	return t
}()
