package studio

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/text"
)

// Bounds of seed 002 and ours (the HTTP schemas read the same numbers).
const (
	MaxTitle          = 255   // titles and names (seed: 1..255)
	MaxLongText       = 10000 // objectives, descriptions, notes, briefs
	MaxPrompt         = 4000  // a scene's visual prompt
	MaxRef            = 128   // ids a client names (template, brand kit, scene)
	MaxProvider       = 255   // a render provider (seed: 1..255)
	MaxModelOverride  = 200   // gatewayModelOverride (seed: 1..200)
	MaxNotes          = 50    // notes of a composition version
	MaxScenes         = 100   // scenes of a project or a snapshot
	MaxMapEntries     = 50    // promptDefaults, settings
	MaxMapKey         = 64    // a promptDefaults or settings key
	MaxMapString      = 2000  // a string value of promptDefaults or settings
	MaxReason         = 500   // a render job's failure reason
	MinCandidateCount = 1     // seed: candidateCount 1..4
	MaxCandidateCount = 4
	MaxVideoSeconds   = 15 // seed: videoDurationSeconds 1..15 or null
	MaxPriority       = 10 // seed: render priority 0..10
	MinSceneMs        = 100
	MaxSceneMs        = 60_000
)

// Networks are seed 002's neutral network names (a template's platforms).
var Networks = []string{"network_1", "network_2", "network_3", "network_4", "network_5", "network_6"}

// MapKeyPattern is a promptDefaults or settings key.
const MapKeyPattern = `^[A-Za-z0-9_.-]+$`

var mapKey = regexp.MustCompile(MapKeyPattern)

// fields collects the failing members of one input.
type fields []errs.Field

func (f *fields) add(pointer, format string, args ...any) {
	*f = append(*f, errs.Field{Pointer: pointer, Detail: fmt.Sprintf(format, args...)})
}

func (f fields) err() error {
	if len(f) == 0 {
		return nil
	}
	return errs.Invalid(f...)
}

// trim removes the blanks around a text (text.Trim).
func trim(s string) string { return text.Trim(s) }

// title checks a required one-line title or name (1..MaxTitle, not blank).
func (f *fields) title(pointer, s string) {
	if trim(s) == "" {
		f.add(pointer, "must not be empty")
		return
	}
	*f = text.Line(*f, pointer, s, MaxTitle)
}

// titleOf checks a title or name when given, and an absent one as blank
// when it is required (creating).
func (f *fields) titleOf(pointer string, s *string, required bool) {
	switch {
	case s != nil:
		f.title(pointer, *s)
	case required:
		f.title(pointer, "")
	}
}

// line checks an optional one-line member.
func (f *fields) line(pointer string, s *string, max int) {
	if s != nil {
		*f = text.Line(*f, pointer, *s, max)
	}
}

// long checks an optional multi-line member.
func (f *fields) long(pointer string, s *string, max int) {
	if s != nil {
		*f = text.MultiLine(*f, pointer, *s, max)
	}
}

// oneOf checks an enumerated member.
func (f *fields) oneOf(pointer, s string, values []string) {
	if !slices.Contains(values, s) {
		f.add(pointer, "must be one of %s", strings.Join(values, ", "))
	}
}

// Values is a map of string to string, number, boolean or null (seed 002's
// promptDefaults and settings).
type Values map[string]any

// values checks a promptDefaults or settings map.
func (f *fields) values(pointer string, v Values) {
	if len(v) > MaxMapEntries {
		f.add(pointer, "must have at most %d members", MaxMapEntries)
		return
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		at := errs.MemberPointer(pointer, k)
		if !mapKey.MatchString(k) || utf8.RuneCountInString(k) > MaxMapKey {
			f.add(at, "a key is 1 to %d letters, digits, '_', '.' or '-'", MaxMapKey)
			continue
		}
		switch x := v[k].(type) {
		case nil, bool, float64, int, int64:
		case string:
			*f = text.MultiLine(*f, at, x, MaxMapString)
		default:
			f.add(at, "must be a string, a number, a boolean or null")
		}
	}
}

// clean trims an optional text; blank is none.
func clean(s *string) *string {
	if s == nil {
		return nil
	}
	t := trim(*s)
	if t == "" {
		return nil
	}
	return &t
}

func itoa(i int) string { return strconv.Itoa(i) }

func marshal(v any) ([]byte, error) { return json.Marshal(v) }

// same reports whether two states encode alike: an update that changes
// nothing records nothing.
func same(a, b any) bool {
	ja, _ := marshal(a)
	jb, _ := marshal(b)
	return string(ja) == string(jb)
}
