// Package eventstore holds the write side of the log: the event envelope, the
// PostgreSQL outbox that commands append to, the relay that publishes the
// outbox to Kafka, and the Kafka topic conventions.
package eventstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
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
// stream's events keep their order on one partition.
func (e Event) ToMessage(topic string) (*sarama.ProducerMessage, error) {
	value, err := e.encode()
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", e.ID, err)
	}
	return &sarama.ProducerMessage{
		Topic:   topic,
		Key:     sarama.StringEncoder(e.StreamID),
		Value:   sarama.ByteEncoder(value),
		Headers: e.headers(),
	}, nil
}

// encode writes the envelope as json.Marshal does, but splices the payload
// in as it is: it was read from PostgreSQL's jsonb, so it is valid JSON,
// and json.Marshal's compaction of a RawMessage re-scanned every byte of it
// (measured: 45% of the process's CPU while the relay published contacts
// import batches, events of a few hundred KB).
func (e Event) encode() ([]byte, error) {
	payload := e.Payload
	e.Payload = nil
	head, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	const tail = `"payload":null}`
	if len(payload) == 0 || !bytes.HasSuffix(head, []byte(tail)) {
		return head, nil
	}
	out := make([]byte, 0, len(head)-len(tail)+len(`"payload":`)+len(payload)+1)
	out = append(out, head[:len(head)-len(tail)]...)
	out = append(out, `"payload":`...)
	out = append(out, payload...)
	return append(out, '}'), nil
}

func (e Event) headers() []sarama.RecordHeader {
	h := func(k, v string) sarama.RecordHeader { return sarama.RecordHeader{Key: []byte(k), Value: []byte(v)} }
	return []sarama.RecordHeader{
		h(HeaderEventID, e.ID.String()),
		h(HeaderEventType, e.Type),
		h(HeaderSchemaVersion, strconv.Itoa(e.SchemaVersion)),
		h(HeaderStreamType, e.StreamType),
		h(HeaderStreamID, e.StreamID),
		h(HeaderStreamVersion, strconv.FormatInt(e.StreamVersion, 10)),
		h(HeaderOrganization, e.OrganizationID),
		h(HeaderCorrelationID, e.CorrelationID),
	}
}

// DecodeEvent reads an envelope from a Kafka record value and upcasts its
// payload to the newest schema version of its type.
func DecodeEvent(value []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(value, &e); err != nil {
		return Event{}, fmt.Errorf("decode envelope: %w", err)
	}
	if e.ID == uuid.Nil || e.Type == "" || e.StreamID == "" || e.StreamVersion < 1 {
		return Event{}, fmt.Errorf("decode envelope: missing event id, type, stream id or version")
	}
	return Upcast(e)
}

// Decode reads an event's payload into its typed struct: the one way code
// outside the domain (reducers, mappers, reactors) reads a payload.
func Decode[T any](e Event) (T, error) {
	var p T
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w", e.Type, err)
	}
	return p, nil
}
