package eventstore

import "reflect"

// A consumer that hands one event to several readers (the projections'
// live group: the status read model and the notification mapping both read
// an incident update's payload as domain.IncidentUpdatedV1) decodes its
// payload once a type instead of once a reader: encoding/json's Unmarshal
// of an incident update was a fifth of the group's Go (bench/README.md,
// "projgo").

// decodedPayloads are the typed payloads Decode made of one event's
// payload, each type once (a handful at most: a slice, not a map).
type decodedPayloads struct {
	payload []byte // the bytes they were decoded from
	values  []decodedPayload
}

// decodedPayload is a T of Decode[T], by its type (an assertion to T
// alone would take a value of another type that implements T when T is an
// interface).
type decodedPayload struct {
	typ   reflect.Type
	value any
}

// SharingDecodes returns e with Decode remembering its typed payloads for
// e and every copy of it: each payload type is decoded once, and each
// reader gets a copy of the same value. So a reader must not change what
// the value points to (a slice's elements, a map, a pointed-to member):
// the next reader of the event would see it; reducers and mappers read
// payloads only. Not for concurrent use: the copies are read by one
// goroutine (a claimed partition's). A copy whose Payload is replaced
// (a redaction) decodes its own payload.
func (e Event) SharingDecodes() Event {
	e.decoded = &decodedPayloads{payload: e.Payload}
	return e
}

// of reports whether the remembered values are of payload (the same bytes
// in memory, not merely equal ones).
func (d *decodedPayloads) of(payload []byte) bool {
	return len(payload) == len(d.payload) && (len(payload) == 0 || &payload[0] == &d.payload[0])
}

func decodeShared[T any](e Event, d *decodedPayloads) (T, error) {
	typ := reflect.TypeFor[T]()
	for _, v := range d.values {
		if v.typ == typ {
			return v.value.(T), nil
		}
	}
	p, err := decodePayload[T](e)
	if err == nil { // a failure is decoded again by the next reader, for its own error
		d.values = append(d.values, decodedPayload{typ, p})
	}
	return p, err
}
