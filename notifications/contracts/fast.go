package contracts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// fastSchema is a contract's payload schema compiled for the Go values a
// mapper builds (map[string]any of strings, ints, string pointers...), so
// that the projection checks a notification without the generic
// validator's walk (measured: a third of the projection's CPU an event).
//
// It only ever answers "surely valid": true means the generic validator
// (ValidateValue's schema path, the verdict of the payload's encoding)
// accepts the payload too; false means "not sure", and the generic validator
// decides and writes the reason. So an invalid notification is recorded
// invalid with exactly the reason it had before; a value this does not know
// only costs the generic check. A schema using a keyword outside the small
// set the contracts use compiles to nil: that contract takes the generic
// validator alone (TestFastValidatorCoversEveryContract says which).
type fastSchema struct {
	types      jsonTypes // allowed kinds; 0: any
	minLength  int       // -1: none
	format     func(string) bool
	oneOf      []valueSet // const and enum: the value must be in each set
	minimum    *int64
	maximum    *int64
	properties map[string]fastProperty
	required   int      // how many properties are required
	absent     []string // required members not among the properties
	closed     bool     // additionalProperties: false
}

// fastProperty is a member's schema and whether it is required: a payload
// is then checked in one pass over its members, counting the required ones.
type fastProperty struct {
	schema   *fastSchema
	required bool
}

type jsonTypes uint8

const (
	tNull jsonTypes = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeNames = map[string]jsonTypes{"null": tNull, "boolean": tBoolean, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject}

// fastFormats are the asserted formats it checks, each answering true only
// for a string the library's format check accepts.
var fastFormats = map[string]func(string) bool{"date-time": surelyDateTime, "uri": surelyURI}

// annotations are keywords without an assertion.
var annotations = map[string]bool{"title": true, "description": true, "$comment": true, "examples": true, "default": true}

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// compileFast compiles a schema file; an error says which keyword it does
// not know (the contract then takes the generic validator alone).
func compileFast(raw []byte) (*fastSchema, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if doc["$schema"] != draft2020 {
		return nil, fmt.Errorf("$schema %v is not draft 2020-12", doc["$schema"])
	}
	top := map[string]any{}
	for k, v := range doc {
		switch k {
		case "$schema", "$id", "x-contract":
		default:
			top[k] = v
		}
	}
	return compileNode(top, "")
}

func compileNode(node map[string]any, at string) (*fastSchema, error) {
	s := &fastSchema{minLength: -1, properties: map[string]fastProperty{}}
	var required []string
	for k, v := range node {
		var err error
		switch k {
		case "type":
			err = s.compileType(v)
		case "minLength":
			var n int64
			if n, err = integer(v); err == nil && n < 0 {
				err = fmt.Errorf("negative")
			}
			s.minLength = int(n)
		case "format":
			f, ok := v.(string)
			if s.format = fastFormats[f]; !ok || s.format == nil {
				err = fmt.Errorf("format %v", v)
			}
		case "const", "enum":
			list, isList := v.([]any)
			if k == "const" {
				list, isList = []any{v}, true
			}
			var set valueSet
			if !isList {
				err = fmt.Errorf("not an array")
			}
			for _, m := range list {
				if err == nil {
					err = set.add(m)
				}
			}
			s.oneOf = append(s.oneOf, set)
		case "minimum", "maximum":
			var n int64
			n, err = exactInteger(v)
			if k == "minimum" {
				s.minimum = &n
			} else {
				s.maximum = &n
			}
		case "required":
			required, err = stringList(v)
		case "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("not a boolean")
			}
			s.closed = !b
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("not an object")
				break
			}
			for name, sub := range props {
				subNode, ok := sub.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s/properties/%s: not a schema object", at, name)
				}
				sch, err := compileNode(subNode, at+"/properties/"+name)
				if err != nil {
					return nil, err
				}
				s.properties[name] = fastProperty{schema: sch}
			}
		default:
			if !annotations[k] {
				err = fmt.Errorf("keyword not handled")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", at, k, err)
		}
	}
	for _, r := range required {
		p, ok := s.properties[r]
		switch {
		case !ok:
			if !slices.Contains(s.absent, r) {
				s.absent = append(s.absent, r)
			}
		case !p.required:
			p.required = true
			s.properties[r] = p
			s.required++
		}
	}
	return s, nil
}

func (s *fastSchema) compileType(v any) error {
	names, ok := []any{v}, true
	if list, isList := v.([]any); isList {
		names = list
	}
	for _, n := range names {
		var t jsonTypes
		name, _ := n.(string)
		if t, ok = typeNames[name]; !ok {
			return fmt.Errorf("type %v", n)
		}
		s.types |= t
	}
	return nil
}

func integer(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number")
	}
	return n.Int64()
}

// exactInteger is an integer a float64 holds exactly, so that comparing a
// float64 value with it as floats is exact.
func exactInteger(v any) (int64, error) {
	n, err := integer(v)
	if err == nil && (n > 1<<53 || n < -(1<<53)) {
		err = fmt.Errorf("beyond a float's exact integers")
	}
	return n, err
}

// valueSet is a const's or an enum's values: strings and integers.
type valueSet struct {
	strs []string
	ints []int64
}

func (set *valueSet) add(v any) error {
	if s, ok := v.(string); ok {
		set.strs = append(set.strs, s)
		return nil
	}
	n, err := exactInteger(v)
	if err != nil {
		return fmt.Errorf("%v: only strings and integers", v)
	}
	set.ints = append(set.ints, n)
	return nil
}

func (set valueSet) hasString(v string) bool { return slices.Contains(set.strs, v) }
func (set valueSet) hasInt(v int64) bool     { return slices.Contains(set.ints, v) }

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not an array")
	}
	out := make([]string, len(list))
	for i, m := range list {
		if out[i], ok = m.(string); !ok {
			return nil, fmt.Errorf("member %d is not a string", i)
		}
	}
	return out, nil
}

// valid is true only when v surely satisfies s: every value kind it knows
// is the one schema.JSONValue passes as is (anything else: false).
func (s *fastSchema) valid(v any) bool {
	switch v := v.(type) {
	case nil:
		return s.scalar(tNull)
	case bool:
		return s.scalar(tBoolean)
	case *bool:
		if v == nil {
			return s.scalar(tNull)
		}
		return s.scalar(tBoolean)
	case string:
		return s.str(v)
	case *string:
		if v == nil {
			return s.scalar(tNull)
		}
		return s.str(*v)
	case int:
		return s.integer(int64(v))
	case *int:
		if v == nil {
			return s.scalar(tNull)
		}
		return s.integer(int64(*v))
	case int64:
		return s.integer(v)
	case int32:
		return s.integer(int64(v))
	case int16:
		return s.integer(int64(v))
	case int8:
		return s.integer(int64(v))
	case uint:
		return v <= math.MaxInt64 && s.integer(int64(v))
	case uint64:
		return v <= math.MaxInt64 && s.integer(int64(v))
	case uint32:
		return s.integer(int64(v))
	case uint16:
		return s.integer(int64(v))
	case uint8:
		return s.integer(int64(v))
	case float64:
		return s.float(v)
	case map[string]any:
		if v == nil {
			return s.scalar(tNull)
		}
		return s.object(v)
	case []string:
		if v == nil {
			return s.scalar(tNull)
		}
		for _, m := range v {
			if !utf8.ValidString(m) {
				return false
			}
		}
		return s.scalar(tArray)
	case []any:
		if v == nil {
			return s.scalar(tNull)
		}
		// No contract checks an array's items, but a member whose
		// encoding is not known could make the whole payload fail to
		// encode: not sure then.
		for _, m := range v {
			if !any_.valid(m) {
				return false
			}
		}
		return s.scalar(tArray)
	}
	return false
}

// any_ accepts every value kind valid knows.
var any_ = &fastSchema{minLength: -1}

func (s *fastSchema) hasType(t jsonTypes) bool { return s.types == 0 || s.types&t != 0 }

// scalar: null, a boolean, an array: equal to no const or enum value
// (strings and integers only).
func (s *fastSchema) scalar(t jsonTypes) bool { return s.hasType(t) && len(s.oneOf) == 0 }

func (s *fastSchema) str(v string) bool {
	if !s.hasType(tString) || !utf8.ValidString(v) {
		return false
	}
	if s.minLength >= 0 && utf8.RuneCountInString(v) < s.minLength {
		return false
	}
	if s.format != nil && !s.format(v) {
		return false
	}
	for _, set := range s.oneOf {
		if !set.hasString(v) {
			return false
		}
	}
	return true
}

func (s *fastSchema) integer(v int64) bool {
	for _, set := range s.oneOf {
		if !set.hasInt(v) {
			return false
		}
	}
	return s.hasType(tNumber|tInteger) && (s.minimum == nil || v >= *s.minimum) && (s.maximum == nil || v <= *s.maximum)
}

// float: minimum, maximum and the const and enum integers are integers a
// float64 holds exactly (compiled so), so comparing as floats is exact.
func (s *fastSchema) float(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	for _, set := range s.oneOf {
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 || !set.hasInt(int64(v)) {
			return false
		}
	}
	if !(s.types == 0 || s.types&tNumber != 0 || (s.types&tInteger != 0 && v == math.Trunc(v))) {
		return false
	}
	return (s.minimum == nil || v >= float64(*s.minimum)) && (s.maximum == nil || v <= float64(*s.maximum))
}

func (s *fastSchema) object(v map[string]any) bool {
	if !s.hasType(tObject) || len(s.oneOf) != 0 {
		return false
	}
	for _, r := range s.absent {
		if _, ok := v[r]; !ok {
			return false
		}
	}
	required := 0
	for k, m := range v {
		if !utf8.ValidString(k) {
			return false
		}
		p, ok := s.properties[k]
		switch {
		case ok:
			if !p.schema.valid(m) {
				return false
			}
			if p.required {
				required++
			}
		case s.closed:
			return false
		default:
			if !any_.valid(m) {
				return false
			}
		}
	}
	return required == s.required
}

// surelyDateTime accepts the RFC 3339 date-times of digits the library's
// "date-time" check accepts: yyyy-mm-ddThh:mm:ss[.f+](Z|±hh:mm), a real
// calendar day, hours, minutes and seconds in range (no leap second).
// Anything else is not sure.
func surelyDateTime(s string) bool {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	second, ok6 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || minute > 59 || second > 59 {
		return false
	}
	rest := s[19:]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	if rest == "Z" || rest == "z" {
		return true
	}
	if len(rest) != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':' {
		return false
	}
	zh, ok1 := digits(rest[1:3])
	zm, ok2 := digits(rest[4:6])
	return ok1 && ok2 && zh <= 23 && zm <= 59
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// surelyURI is the library's "uri" check (an absolute URL that net/url
// parses) for a host that is not an IPv6 literal (not sure then: the
// library checks those further).
func surelyURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && !strings.Contains(u.Hostname(), ":") && u.IsAbs()
}
