package httpapi

import (
	"encoding/json"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"unicode/utf8"
)

// quickCheck accepts the inputs of an action whose input schema is a plain
// closed object (string, boolean, integer and null members with lengths,
// patterns, enums and bounds; how nearly every action's input is written)
// without running the JSON Schema validator (~20 allocations, 1.2 KB, and
// ~6 µs of an incident update's CPU under load: issue 22). It only ever
// says yes: an input
// it does not accept, or a schema it does not know whole, goes to the
// validator, so every refusal and its failing members are the validator's
// (TestQuickCheckNeverAcceptsWhatTheSchemaRefuses). A member whose own
// schema is beyond it (an array, an object, a number, a format) does not
// stop it: an input holding that member goes to the validator, one without
// it is checked here (a completion's prompt and max_tokens, not its
// messages or tools). Alternatives of required members (anyOf of required
// lists: "messages or a prompt") are checked too.
type quickCheck struct {
	members  map[string]quickMember
	required []string
	anyOf    [][]string // at least one of these lists present whole, when any
	closed   bool       // additionalProperties false
}

type quickMember struct {
	beyond                      bool // its schema is the validator's: present, the input goes there
	str, null, boolean, integer bool // the types admitted
	minLength, maxLength        int  // -1: none
	pattern                     func(string) bool
	enum                        []string
	minimum, maximum            *int64
}

// annotations are keywords that never make an instance invalid.
var annotations = map[string]bool{"description": true, "title": true, "examples": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true}

// compileQuickCheck reads an input schema; nil when any part of it is
// beyond what quickCheck knows (the validator then checks every input).
func compileQuickCheck(raw json.RawMessage) *quickCheck {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil
	}
	q := &quickCheck{members: map[string]quickMember{}}
	for k, v := range doc {
		switch k {
		case "type":
			if v != "object" {
				return nil
			}
		case "additionalProperties":
			others, ok := v.(bool) // a schema for the other members: left to the validator
			if !ok {
				return nil
			}
			q.closed = !others
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, name := range list {
				s, ok := name.(string)
				if !ok {
					return nil
				}
				q.required = append(q.required, s)
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			for name, p := range props {
				m, ok := compileQuickMember(p)
				if !ok {
					m = quickMember{beyond: true}
				}
				q.members[name] = m
			}
		case "anyOf":
			alts, ok := v.([]any)
			if !ok || len(alts) == 0 {
				return nil
			}
			for _, alt := range alts {
				set, ok := requiredOnly(alt)
				if !ok {
					return nil // an alternative that says more than which members: the validator's
				}
				q.anyOf = append(q.anyOf, set)
			}
		default:
			if !annotations[k] {
				return nil
			}
		}
	}
	if doc["type"] != "object" {
		return nil
	}
	return q
}

// requiredOnly reads {"required": [names]} and nothing else.
func requiredOnly(v any) ([]string, bool) {
	alt, ok := v.(map[string]any)
	if !ok || len(alt) != 1 {
		return nil, false
	}
	list, ok := alt["required"].([]any)
	if !ok {
		return nil, false
	}
	names := make([]string, 0, len(list))
	for _, name := range list {
		s, ok := name.(string)
		if !ok {
			return nil, false
		}
		names = append(names, s)
	}
	return names, true
}

func compileQuickMember(v any) (quickMember, bool) {
	s, ok := v.(map[string]any)
	if !ok {
		return quickMember{}, false
	}
	m := quickMember{minLength: -1, maxLength: -1}
	types := []any{s["type"]}
	if list, ok := s["type"].([]any); ok {
		types = list
	}
	for _, t := range types {
		switch t {
		case "string":
			m.str = true
		case "null":
			m.null = true
		case "boolean":
			m.boolean = true
		case "integer":
			m.integer = true
		default:
			return quickMember{}, false // no type, or one quickCheck leaves to the validator
		}
	}
	for k, v := range s {
		switch k {
		case "type":
		case "minLength", "maxLength":
			n, ok := v.(float64)
			if !ok || n < 0 || n != float64(int(n)) {
				return quickMember{}, false
			}
			if k == "minLength" {
				m.minLength = int(n)
			} else {
				m.maxLength = int(n)
			}
		case "minimum", "maximum":
			n, ok := v.(float64)
			if !ok || n != float64(int64(n)) || n > 1<<53 || n < -(1<<53) {
				return quickMember{}, false
			}
			b := int64(n)
			if k == "minimum" {
				m.minimum = &b
			} else {
				m.maximum = &b
			}
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return quickMember{}, false
			}
			if m.pattern = compilePattern(p); m.pattern == nil {
				return quickMember{}, false
			}
		case "enum":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return quickMember{}, false
			}
			m.enum = []string{}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return quickMember{}, false
				}
				m.enum = append(m.enum, s)
			}
		default:
			if !annotations[k] {
				return quickMember{}, false
			}
		}
	}
	return m, true
}

// compilePattern is the pattern as the validator runs it (Go's regexp),
// with the usual shape, ^[class]*$, matched by looking each character up
// in the class instead of running the regexp: every text member's pattern
// (domain/text) is one. nil: the pattern does not compile.
func compilePattern(p string) func(string) bool {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	if class := starredClass(p); class != nil {
		return func(s string) bool {
			for _, r := range s { // an invalid byte is U+FFFD, as regexp reads it
				if !inClass(class, r) {
					return false
				}
			}
			return true
		}
	}
	return re.MatchString
}

// starredClass is the ranges of a pattern that is exactly ^[class]*$
// (begin text, any number of one character class, end text), nil for any
// other pattern.
func starredClass(p string) []rune {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) != 3 || re.Sub[0].Op != syntax.OpBeginText || re.Sub[2].Op != syntax.OpEndText {
		return nil
	}
	star := re.Sub[1]
	if star.Op != syntax.OpStar || len(star.Sub) != 1 || star.Sub[0].Op != syntax.OpCharClass {
		return nil
	}
	return star.Sub[0].Rune
}

func inClass(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if r >= ranges[i] && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// accepts reports that the validator would accept v (the input as
// assembleInput decodes it); false is "ask the validator".
func (q *quickCheck) accepts(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if !present(obj, q.required) {
		return false
	}
	if len(q.anyOf) > 0 {
		some := false
		for _, set := range q.anyOf {
			if some = present(obj, set); some {
				break
			}
		}
		if !some {
			return false
		}
	}
	for name, value := range obj {
		m, known := q.members[name]
		if !known {
			if q.closed {
				return false
			}
			continue
		}
		if !m.accepts(value) {
			return false
		}
	}
	return true
}

func present(obj map[string]any, names []string) bool {
	for _, name := range names {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	return true
}

func (m quickMember) accepts(v any) bool {
	if m.beyond {
		return false
	}
	switch v := v.(type) {
	case nil:
		return m.null && m.enum == nil
	case bool:
		return m.boolean && m.enum == nil
	case string:
		if !m.str || !utf8.ValidString(v) {
			return false
		}
		if m.minLength >= 0 || m.maxLength >= 0 {
			n := utf8.RuneCountInString(v)
			if m.minLength >= 0 && n < m.minLength || m.maxLength >= 0 && n > m.maxLength {
				return false
			}
		}
		if m.pattern != nil && !m.pattern(v) {
			return false
		}
		return m.enum == nil || slices.Contains(m.enum, v)
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		return err == nil && m.integerAccepts(n)
	case int64:
		return m.integerAccepts(v)
	}
	return false
}

func (m quickMember) integerAccepts(n int64) bool {
	return m.integer && m.enum == nil && (m.minimum == nil || n >= *m.minimum) && (m.maximum == nil || n <= *m.maximum)
}
