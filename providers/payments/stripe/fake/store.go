package fake

import (
	"maps"
	"strconv"

	"github.com/platform/backend/providers/payments/stripe"
)

// scope is one account's objects: a platform (an API key) or a connected
// account under it.
type scope struct {
	objects map[string]map[string]any // id -> object
	order   []string                  // ids in creation order
	// refunded is the amount refunded so far per payment intent.
	refunded map[string]int64
}

// scope returns (creating) the objects of apiKey's platform or of one of
// its connected accounts. Caller holds s.mu.
func (s *Server) scope(apiKey, account string) *scope {
	k := apiKey + "\x00" + account
	sc, ok := s.scopes[k]
	if !ok {
		sc = &scope{objects: map[string]map[string]any{}, refunded: map[string]int64{}}
		s.scopes[k] = sc
	}
	return sc
}

func (sc *scope) put(obj map[string]any) {
	id, _ := obj["id"].(string)
	if _, exists := sc.objects[id]; !exists {
		sc.order = append(sc.order, id)
	}
	sc.objects[id] = obj
}

func (sc *scope) remove(id string) {
	delete(sc.objects, id)
}

// find returns the object with this id if it is of this type.
func (s *Server) find(sc *scope, id, object string) (map[string]any, bool) {
	obj, ok := sc.objects[id]
	if !ok || obj["object"] != object {
		return nil, false
	}
	return obj, true
}

// Count is how many live objects of a type ("payment_intent",
// "checkout.session", ...) the fake holds, across all accounts.
func (s *Server) Count(object string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, sc := range s.scopes {
		for _, obj := range sc.objects {
			if obj["object"] == object {
				n++
			}
		}
	}
	return n
}

// call is one request being served: its operation, path id, params and
// where its objects live.
type call struct {
	op       stripe.Operation
	id       string
	params   map[string]any
	raw      string // the form as sent, for comparing a retried key's params
	endpoint string // method and path
	idemKey  string // scoped Idempotency-Key; "" without one (or on GET, DELETE)
	now      int64
	scope    *scope // the call's account: the platform, or Stripe-Account
	platform *scope // the platform's own (connected accounts live there)
}

// str is a string param, "" when absent.
func (c *call) str(k string) string {
	v, _ := c.params[k].(string)
	return v
}

func (c *call) has(k string) bool {
	_, ok := c.params[k]
	return ok
}

// need refuses a call without one of these params.
func (c *call) need(keys ...string) *apiError {
	for _, k := range keys {
		if !c.has(k) || c.params[k] == "" {
			return missing(k)
		}
	}
	return nil
}

// integer reads an integer param; def when absent.
func (c *call) integer(k string, def int64) (int64, *apiError) {
	return integerIn(c.params, k, k, def)
}

func integerIn(m map[string]any, k, param string, def int64) (int64, *apiError) {
	v, ok := m[k]
	if !ok {
		return def, nil
	}
	s, _ := v.(string)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &apiError{status: 400, typ: invalidRequest, code: "parameter_invalid_integer", param: param,
			message: "Invalid integer: " + s}
	}
	return n, nil
}

// boolean reads a boolean param ("true"/"false"); def when absent.
func (c *call) boolean(k string, def bool) (bool, *apiError) {
	v, ok := c.params[k]
	if !ok {
		return def, nil
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, invalid(k, "Invalid boolean: "+strconv.Quote(toString(v)))
}

// object reads a nested object param, nil when absent or not an object.
func (c *call) object(k string) map[string]any {
	m, _ := c.params[k].(map[string]any)
	return m
}

// list reads an array param, nil when absent or not an array.
func (c *call) list(k string) []any {
	l, _ := c.params[k].([]any)
	return l
}

// metadata applies the metadata param to old as Stripe does: keys set, a
// key with an empty value removed, metadata="" clears all.
func (c *call) metadata(old map[string]any) map[string]any {
	out := map[string]any{}
	maps.Copy(out, old)
	switch m := c.params["metadata"].(type) {
	case string:
		if m == "" {
			return map[string]any{}
		}
	case map[string]any:
		for k, v := range m {
			if v == "" {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
	}
	return out
}

// copyStrings sets the string params named in keys on obj.
func (c *call) copyStrings(obj map[string]any, keys ...string) {
	for _, k := range keys {
		if v, ok := c.params[k].(string); ok {
			obj[k] = v
		}
	}
}

// orNil is a string param, or JSON null when absent (Stripe's nullable
// members).
func (c *call) orNil(k string) any {
	if v := c.str(k); v != "" {
		return v
	}
	return nil
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}

// member names a nested param in errors: member("items[0]", "price") is
// items[0][price]; at the top, member("", "price") is price.
func member(param, name string) string {
	if param == "" {
		return name
	}
	return param + "[" + name + "]"
}

func itoa(i int) string { return strconv.Itoa(i) }

// copyObject is a shallow copy: a change is built on it and stored only
// when the whole call succeeds.
func copyObject(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	maps.Copy(out, obj)
	return out
}

// mapOf is v as an object, or an empty one.
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return copyObject(m)
}
