package notifications

import (
	"maps"
	"testing"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/ThreeDotsLabs/watermill/message"
)

// watermillRecord is the record the dispatcher made before dispatchMessage:
// the row as a watermill message through Marshaler.
func watermillRecord(t *testing.T, topic string, x pendingRow) *sarama.ProducerMessage {
	msg := message.NewMessage(x.key, x.envelope)
	msg.Metadata.Set(MetaType, x.typ)
	msg.Metadata.Set(MetaIdempotencyKey, x.key)
	msg.Metadata.Set(MetaOrganization, x.org)
	if x.state == stateInvalid {
		msg.Metadata.Set(MetaReason, x.reason)
	}
	pm, err := Marshaler{}.Marshal(topic, msg)
	if err != nil {
		t.Fatal(err)
	}
	return pm
}

func headerMap(hs []sarama.RecordHeader) map[string]string {
	m := map[string]string{}
	for _, h := range hs {
		m[string(h.Key)] = string(h.Value)
	}
	return m
}

// The dispatcher's records are what the watermill message made them: the
// delivery reads them with watermill's DefaultMarshaler, keyed alike.
func TestDispatchMessageIsMarshalers(t *testing.T) {
	rows := []pendingRow{
		{key: "status:inc-1:3:org-1", typ: "status.incident.updated", org: "org-1", envelope: []byte(`{"a":1}`), state: "pending"},
		{key: "status:inc-2:1:org-1", typ: "status.incident.created", org: "org-1", envelope: []byte(`{"b":2}`), state: stateInvalid, reason: "/title: missing"},
		{key: "", typ: "t", org: "o", envelope: []byte(`{}`), state: "pending"},
	}
	for _, x := range rows {
		want := watermillRecord(t, "topic", x)
		got := dispatchMessage("topic", x)
		wantKey, gotKey := []byte(nil), []byte(nil)
		if want.Key != nil {
			wantKey, _ = want.Key.Encode()
		}
		if got.Key != nil {
			gotKey, _ = got.Key.Encode()
		}
		if (want.Key == nil) != (got.Key == nil) || string(wantKey) != string(gotKey) {
			t.Fatalf("row %q: key %q (nil %v), want %q (nil %v)", x.key, gotKey, got.Key == nil, wantKey, want.Key == nil)
		}
		wv, _ := want.Value.Encode()
		gv, _ := got.Value.Encode()
		if got.Topic != want.Topic || string(gv) != string(wv) {
			t.Fatalf("row %q: topic %s value %s, want %s %s", x.key, got.Topic, gv, want.Topic, wv)
		}
		if g, w := headerMap(got.Headers), headerMap(want.Headers); !maps.Equal(g, w) || len(got.Headers) != len(want.Headers) {
			t.Fatalf("row %q: headers %v, want %v", x.key, g, w)
		}
		if string(got.Headers[headerIdempotencyKey].Key) != MetaIdempotencyKey {
			t.Fatalf("header %d is %s, want the idempotency key", headerIdempotencyKey, got.Headers[headerIdempotencyKey].Key)
		}
		// As the delivery reads it.
		read := &sarama.ConsumerMessage{Value: gv}
		for i := range got.Headers {
			read.Headers = append(read.Headers, &got.Headers[i])
		}
		msg, err := kafka.DefaultMarshaler{}.Unmarshal(read)
		if err != nil {
			t.Fatal(err)
		}
		reason := ""
		if x.state == stateInvalid {
			reason = x.reason
		}
		if msg.UUID != x.key || msg.Metadata.Get(MetaIdempotencyKey) != x.key || msg.Metadata.Get(MetaType) != x.typ ||
			msg.Metadata.Get(MetaOrganization) != x.org || msg.Metadata.Get(MetaReason) != reason {
			t.Fatalf("row %q read back as %s %v", x.key, msg.UUID, msg.Metadata)
		}
	}
}

// A notification's record is five allocations (its header values, its
// headers, the message, its key and value encoders); the watermill message
// made it 18 (measured with the former path: the watermill message, its
// metadata map, each header copied).
func TestDispatchMessageAllocations(t *testing.T) {
	x := pendingRow{key: "status:inc-1:3:org-1", typ: "status.incident.updated", org: "org-1", envelope: []byte(`{"a":1}`), state: "pending"}
	if allocs := testing.AllocsPerRun(100, func() { _ = dispatchMessage("topic", x) }); allocs > 5 {
		t.Fatalf("%.0f allocations a notification's record", allocs)
	}
}
