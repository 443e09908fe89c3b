// Package eventstore holds the write side of the log: the event envelope, the
// PostgreSQL outbox that commands append to, the relay that publishes the
// outbox to Kafka, and the Kafka topic conventions.
package eventstore

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/internal/jsonenc"
)

// Actor is the principal on whose behalf an event was recorded.
type Actor struct {
	ID   string `json:"id"`
	Type string `json:"type"` // user, api_key, service, system
}

// Event is the envelope of every domain event, on the outbox and on the log.
type Event struct {
	ID             uuid.UUID       `json:"event_id"`
	Type           string          `json:"type"`
	SchemaVersion  int             `json:"schema_version"`
	StreamType     string          `json:"stream_type"`
	StreamID       string          `json:"stream_id"`
	StreamVersion  int64           `json:"stream_version"`
	OrganizationID string          `json:"organization_id"`
	Actor          Actor           `json:"actor"`
	OccurredAt     time.Time       `json:"occurred_at"`
	RecordedAt     time.Time       `json:"recorded_at"`
	IdempotencyKey string          `json:"idempotency_key,omitempty"`
	CorrelationID  string          `json:"correlation_id,omitempty"`
	CausationID    string          `json:"causation_id,omitempty"`
	Payload        json.RawMessage `json:"payload"`

	// decoded, when set (SharingDecodes), keeps what Decode made of
	// Payload for every copy of this event: one decode a payload type,
	// however many reducers read it.
	decoded *decodedPayloads
}

// Position identifies "this stream has reached this version": it is what a
// command returns and what a read-your-writes query waits for.
type Position struct {
	StreamID string
	Version  int64
}

func (p Position) String() string { return p.StreamID + "@" + strconv.FormatInt(p.Version, 10) }

// ParsePosition reads the form written by Position.String.
func ParsePosition(s string) (Position, error) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '@' {
			v, err := strconv.ParseInt(s[i+1:], 10, 64)
			// A stream id never holds a comma or a space: such a string is a
			// list of positions (Positions.String), not one.
			if err != nil || i == 0 || v < 1 || strings.ContainsAny(s[:i], ", \t") {
				break
			}
			return Position{StreamID: s[:i], Version: v}, nil
		}
	}
	return Position{}, fmt.Errorf("position %q: want <stream id>@<version>", s)
}

// Positions is where several streams have reached: the answer of a command
// that appended to more than one stream (a suggestion per network, a user
// and its organization), so a read that waits for it waits for every one.
// Written as positions joined by ", " (an HTTP list: stream ids never hold a
// comma); one position is written exactly as Position.String.
type Positions []Position

func (ps Positions) String() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, ", ")
}

// MaxPositions bounds the positions one header may name (a command answers
// a handful; a list longer than this is not one of ours).
const MaxPositions = 64

// ParsePositions reads the form written by Positions.String (or one
// Position).
func ParsePositions(s string) (Positions, error) {
	parts := strings.Split(s, ",")
	if len(parts) > MaxPositions {
		return nil, fmt.Errorf("at most %d positions", MaxPositions)
	}
	out := make(Positions, 0, len(parts))
	for _, part := range parts {
		p, err := ParsePosition(strings.Trim(part, " \t"))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Add returns ps covering p too: a stream already named keeps the later
// of the two versions, a new one is appended (first named, first written).
func (ps Positions) Add(p Position) Positions {
	if p.StreamID == "" {
		return ps
	}
	for i := range ps {
		if ps[i].StreamID == p.StreamID {
			ps[i].Version = max(ps[i].Version, p.Version)
			return ps
		}
	}
	return append(ps, p)
}

// Kafka header names. The value carries the whole envelope as JSON too, so a
// reader needs only one of the two; headers let tools filter without parsing.
const (
	HeaderEventID       = "event_id"
	HeaderEventType     = "event_type"
	HeaderSchemaVersion = "schema_version"
	HeaderStreamType    = "stream_type"
	HeaderStreamID      = "stream_id"
	HeaderStreamVersion = "stream_version"
	HeaderOrganization  = "organization_id"
	HeaderCorrelationID = "correlation_id"
)

// ToMessage encodes the event for Kafka, keyed by stream id so that one
// stream's events keep their order on one partition. The key's bytes are
// the stream id header's (a StringEncoder copied them for every record).
func (e Event) ToMessage(topic string) (*sarama.ProducerMessage, error) {
	value, err := e.encode()
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", e.ID, err)
	}
	headers := e.headers()
	return &sarama.ProducerMessage{
		Topic:   topic,
		Key:     sarama.ByteEncoder(headers[headerStreamID].Value),
		Value:   sarama.ByteEncoder(value),
		Headers: headers,
	}, nil
}

// encode writes the envelope as json.Marshal does (the same bytes), member
// by member instead of by reflection (measured: most of the relay's own CPU),
// and splices the payload in as it is: it was read from PostgreSQL's jsonb,
// so it is valid JSON, and json.Marshal's compaction of a RawMessage
// re-scanned every byte of it (measured: 45% of the process's CPU while the
// relay published contacts import batches, events of a few hundred KB).
func (e Event) encode() ([]byte, error) {
	b := make([]byte, 0, 384+len(e.Payload))
	b = append(b, `{"event_id":"`...)
	b = appendUUID(b, e.ID)
	b = append(b, `","type":`...)
	b = jsonenc.AppendString(b, e.Type)
	b = append(b, `,"schema_version":`...)
	b = strconv.AppendInt(b, int64(e.SchemaVersion), 10)
	b = append(b, `,"stream_type":`...)
	b = jsonenc.AppendString(b, e.StreamType)
	b = append(b, `,"stream_id":`...)
	b = jsonenc.AppendString(b, e.StreamID)
	b = append(b, `,"stream_version":`...)
	b = strconv.AppendInt(b, e.StreamVersion, 10)
	b = append(b, `,"organization_id":`...)
	b = jsonenc.AppendString(b, e.OrganizationID)
	b = append(b, `,"actor":{"id":`...)
	b = jsonenc.AppendString(b, e.Actor.ID)
	b = append(b, `,"type":`...)
	b = jsonenc.AppendString(b, e.Actor.Type)
	b = append(b, `},"occurred_at":`...)
	var err error
	if b, err = appendJSONTime(b, e.OccurredAt); err != nil {
		return nil, err
	}
	b = append(b, `,"recorded_at":`...)
	if b, err = appendJSONTime(b, e.RecordedAt); err != nil {
		return nil, err
	}
	for _, m := range [...]struct{ name, value string }{
		{`,"idempotency_key":`, e.IdempotencyKey}, {`,"correlation_id":`, e.CorrelationID}, {`,"causation_id":`, e.CausationID},
	} {
		if m.value != "" { // omitempty
			b = append(b, m.name...)
			b = jsonenc.AppendString(b, m.value)
		}
	}
	b = append(b, `,"payload":`...)
	if len(e.Payload) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, e.Payload...)
	}
	return append(b, '}'), nil
}

// appendJSONTime appends t as time.Time's MarshalJSON writes it.
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// appendUUID appends the canonical text form of id (uuid's String).
func appendUUID(b []byte, id uuid.UUID) []byte {
	var buf [36]byte
	hex.Encode(buf[0:8], id[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], id[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], id[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], id[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], id[10:])
	return append(b, buf[:]...)
}

// Header keys, shared by every record (sarama only reads them).
var (
	keyEventID       = []byte(HeaderEventID)
	keyEventType     = []byte(HeaderEventType)
	keySchemaVersion = []byte(HeaderSchemaVersion)
	keyStreamType    = []byte(HeaderStreamType)
	keyStreamID      = []byte(HeaderStreamID)
	keyStreamVersion = []byte(HeaderStreamVersion)
	keyOrganization  = []byte(HeaderOrganization)
	keyCorrelationID = []byte(HeaderCorrelationID)
)

// headerStreamID is the stream id's place in headers.
const headerStreamID = 4

// headers are the record's headers, their values in one allocation.
func (e Event) headers() []sarama.RecordHeader {
	buf := make([]byte, 0, 36+len(e.Type)+4+len(e.StreamType)+len(e.StreamID)+20+len(e.OrganizationID)+len(e.CorrelationID))
	value := func(f func([]byte) []byte) []byte {
		start := len(buf)
		buf = f(buf)
		return buf[start:len(buf):len(buf)]
	}
	str := func(s string) []byte { return value(func(b []byte) []byte { return append(b, s...) }) }
	return []sarama.RecordHeader{
		{Key: keyEventID, Value: value(func(b []byte) []byte { return appendUUID(b, e.ID) })},
		{Key: keyEventType, Value: str(e.Type)},
		{Key: keySchemaVersion, Value: value(func(b []byte) []byte { return strconv.AppendInt(b, int64(e.SchemaVersion), 10) })},
		{Key: keyStreamType, Value: str(e.StreamType)},
		{Key: keyStreamID, Value: str(e.StreamID)},
		{Key: keyStreamVersion, Value: value(func(b []byte) []byte { return strconv.AppendInt(b, e.StreamVersion, 10) })},
		{Key: keyOrganization, Value: str(e.OrganizationID)},
		{Key: keyCorrelationID, Value: str(e.CorrelationID)},
	}
}

// DecodeEvent reads an envelope from a Kafka record value and upcasts its
// payload to the newest schema version of its type.
func DecodeEvent(value []byte) (Event, error) {
	e, ok := decodeEnvelope(value)
	if !ok {
		e = Event{}
		if err := json.Unmarshal(value, &e); err != nil {
			return Event{}, fmt.Errorf("decode envelope: %w", err)
		}
	}
	if e.ID == uuid.Nil || e.Type == "" || e.StreamID == "" || e.StreamVersion < 1 {
		return Event{}, fmt.Errorf("decode envelope: missing event id, type, stream id or version")
	}
	return Upcast(e)
}

// Decode reads an event's payload into its typed struct: the one way code
// outside the domain (reducers, mappers, reactors) reads a payload.
func Decode[T any](e Event) (T, error) {
	if d := e.decoded; d != nil && d.of(e.Payload) {
		return decodeShared[T](e, d)
	}
	return decodePayload[T](e)
}

func decodePayload[T any](e Event) (T, error) {
	var p T
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w", e.Type, err)
	}
	return p, nil
}

// decodeEnvelope reads an envelope laid out as encode (and json.Marshal
// before it) writes one: members in order, no blanks, strings of printable
// ASCII without escapes, the payload last. It gives what json.Unmarshal
// would, member by member instead of by reflection (measured: most of a
// replay's decoding); ok is false for anything else, which json.Unmarshal
// then reads (or refuses) as before.
func decodeEnvelope(b []byte) (e Event, ok bool) {
	r := Layout{b: b, ok: true}
	r.Lit(`{"event_id":`)
	if id := r.Str(); r.ok {
		r.ok = e.ID.UnmarshalText([]byte(id)) == nil
	}
	r.Lit(`,"type":`)
	e.Type = r.Str()
	r.Lit(`,"schema_version":`)
	sv := r.Int()
	e.SchemaVersion = int(sv)
	r.Lit(`,"stream_type":`)
	e.StreamType = r.Str()
	r.Lit(`,"stream_id":`)
	e.StreamID = r.Str()
	r.Lit(`,"stream_version":`)
	e.StreamVersion = r.Int()
	r.Lit(`,"organization_id":`)
	e.OrganizationID = r.Str()
	r.Lit(`,"actor":{"id":`)
	e.Actor.ID = r.Str()
	r.Lit(`,"type":`)
	e.Actor.Type = r.Str()
	r.Lit(`},"occurred_at":`)
	e.OccurredAt = r.Time()
	r.Lit(`,"recorded_at":`)
	e.RecordedAt = r.Time()
	for _, m := range [...]struct {
		name string
		to   *string
	}{{`,"idempotency_key":`, &e.IdempotencyKey}, {`,"correlation_id":`, &e.CorrelationID}, {`,"causation_id":`, &e.CausationID}} {
		if r.Has(m.name) {
			r.Lit(m.name)
			*m.to = r.Str()
		}
	}
	r.Lit(`,"payload":`)
	if !r.ok || len(b)-r.i < 2 || b[len(b)-1] != '}' {
		return Event{}, false
	}
	payload := b[r.i : len(b)-1]
	if blank(payload[0]) || blank(payload[len(payload)-1]) || string(payload) == "null" || !validJSON(payload) {
		return Event{}, false
	}
	e.Payload = append(json.RawMessage(nil), payload...)
	return e, true
}

func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
