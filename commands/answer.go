package commands

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"time"
)

// An answer is recorded as JSON (for the replay of its idempotency key),
// and Run used to decode that record back into the answer it had just
// encoded: 2.4% of the Go CPU of an incident update. For an answer type
// whose decoding gives back exactly what was encoded (decodesAsEncoded),
// Run returns the decided value itself; any other type, and every replay,
// is decoded from the record, so a first answer and its replays are alike.

// decodesAsEncoded reports whether every value of T decodes from its JSON
// encoding into an equal value: exported fields of booleans, numbers,
// strings, times, and pointers, slices, arrays, string-keyed maps and
// structs of them. A type with a field JSON leaves out (unexported or
// tagged "-"), an interface, or its own (text) marshaler may come back
// different, so it is not one.
func decodesAsEncoded[T any]() bool {
	t := reflect.TypeFor[T]()
	if v, ok := plainTypes.Load(t); ok {
		return v.(bool)
	}
	v := plainJSON(t, map[reflect.Type]bool{})
	plainTypes.Store(t, v)
	return v
}

var plainTypes sync.Map // reflect.Type -> bool

var (
	timeType        = reflect.TypeFor[time.Time]()
	marshalerTypes  = []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
	unmarshalerType = []reflect.Type{reflect.TypeFor[json.Unmarshaler](), reflect.TypeFor[encoding.TextUnmarshaler]()}
)

func plainJSON(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == timeType {
		return true // RFC 3339 with nanoseconds; the domain's clocks are UTC
	}
	for _, m := range append(marshalerTypes, unmarshalerType...) {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return false
		}
	}
	if seen[t] {
		return true // a recursive type: decided where it started
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return plainJSON(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && plainJSON(t.Key(), seen) && plainJSON(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" || f.Anonymous || !plainJSON(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}
