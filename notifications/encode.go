package notifications

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/internal/jsonenc"
)

// appendEnvelope appends the bytes json.Marshal(outgoing{env, payload})
// writes, written member by member instead of by reflection (measured:
// over a third of the projection's CPU an event went to that encoding and
// its sorting of the payload's keys). Values it does not write itself (a
// float, a struct, a type with its own MarshalJSON) are appended as
// json.Marshal writes them; an error means the caller encodes with
// json.Marshal, for its verdict and its error (TestAppendEnvelopeIsMarshal).
func appendEnvelope(b []byte, env *Envelope, payload map[string]any) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = jsonenc.AppendString(b, env.Type)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(env.Version), 10)
	b = append(b, `,"idempotency_key":`...)
	b = jsonenc.AppendString(b, env.IdempotencyKey)
	b = append(b, `,"organization_id":`...)
	b = jsonenc.AppendString(b, env.OrganizationID)
	b = append(b, `,"recipients":{"mode":`...)
	b = jsonenc.AppendString(b, env.Recipients.Mode)
	b = append(b, `,"external_addresses":`...)
	b = jsonenc.AppendString(b, env.Recipients.ExternalAddresses)
	b = append(b, `},"data_classification":`...)
	b = jsonenc.AppendString(b, env.DataClassification)
	b = append(b, `,"sensitive_fields":`...)
	b = appendStrings(b, env.SensitiveFields)
	b = append(b, `,"source_event_id":`...)
	b = jsonenc.AppendString(b, env.SourceEventID)
	b = append(b, `,"emitted_at":`...)
	b, err := appendTime(b, env.EmittedAt)
	if err != nil {
		return b, err
	}
	b = append(b, `,"payload":`...)
	if payload == nil {
		b = append(b, "null"...)
	} else if b, err = appendObject(b, payload); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsonenc.AppendString(b, v), nil
	case *string:
		if v == nil {
			return append(b, "null"...), nil
		}
		return jsonenc.AppendString(b, *v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case *int:
		if v == nil {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, int64(*v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case uint64:
		return strconv.AppendUint(b, v, 10), nil
	case []string:
		return appendStrings(b, v), nil
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		return appendObject(b, v)
	}
	raw, err := json.Marshal(v)
	return append(b, raw...), err
}

// appendObject writes the members sorted by name, as encoding/json does.
func appendObject(b []byte, m map[string]any) ([]byte, error) {
	var buf [24]member
	members := buf[:0]
	for k, v := range m {
		members = append(members, member{k, v})
	}
	slices.SortFunc(members, func(x, y member) int { return strings.Compare(x.name, y.name) })
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, m.name)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, m.value); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

type member struct {
	name  string
	value any
}

func appendStrings(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, m := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, m)
	}
	return append(b, ']')
}

// appendTime is time.Time's MarshalJSON, without its allocation.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	n0 := len(b) + 1
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	// MarshalJSON's refusals: a year not 4 digits wide, an offset of 24
	// hours or more.
	if b[n0+4] != '-' {
		return b, errors.New("year outside of range [0,9999]")
	}
	if b[len(b)-1] != 'Z' {
		if c := b[len(b)-6]; '0' <= c && c <= '9' || 10*(b[len(b)-5]-'0')+(b[len(b)-4]-'0') >= 24 {
			return b, errors.New("timezone hour outside of range [0,23]")
		}
	}
	return append(b, '"'), nil
}
