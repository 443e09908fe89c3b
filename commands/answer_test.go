package commands

import (
	"encoding/json"
	"testing"
	"time"
)

type plainAnswer struct {
	ID      string            `json:"id"`
	N       int               `json:"n,omitempty"`
	Ratio   float64           `json:"ratio"`
	Host    *string           `json:"host"`
	Tags    []string          `json:"tags"`
	Counts  map[string]int64  `json:"counts"`
	At      time.Time         `json:"at"`
	Nested  *plainAnswer      `json:"nested"`
	ByName  map[string]*inner `json:"by_name"`
	Raw     []byte            `json:"raw"`
	Flagged bool              `json:"flagged,string"`
}

type inner struct {
	A [2]uint8 `json:"a"`
}

type hidden struct {
	ID     string `json:"id"`
	Secret string `json:"-"`
}

type unexported struct {
	ID   string `json:"id"`
	note string
}

type loose struct {
	Meta map[string]any `json:"meta"`
}

type Embedded struct{ A string }

type embedding struct {
	Embedded
	B string
}

type custom struct{ s string }

func (c custom) MarshalJSON() ([]byte, error) { return json.Marshal("x" + c.s) }

type customText int

func (c *customText) UnmarshalText([]byte) error { *c = 7; return nil }

// Only types whose every value decodes from its JSON encoding into an equal
// one take the decided answer as it is; the others are decoded from the
// record, as a replay is.
func TestDecodesAsEncoded(t *testing.T) {
	for name, got := range map[string]bool{
		"plain struct":          decodesAsEncoded[plainAnswer](),
		"pointer to it":         decodesAsEncoded[*plainAnswer](),
		"slice of it":           decodesAsEncoded[[]plainAnswer](),
		"int":                   decodesAsEncoded[int](),
		"time":                  decodesAsEncoded[time.Time](),
		"string-keyed map":      decodesAsEncoded[map[string]string](),
		"a member tagged -":     !decodesAsEncoded[hidden](),
		"an unexported field":   !decodesAsEncoded[unexported](),
		"an interface":          !decodesAsEncoded[any](),
		"a map of interfaces":   !decodesAsEncoded[loose](),
		"an embedded struct":    !decodesAsEncoded[embedding](),
		"its own marshaler":     !decodesAsEncoded[[]custom](),
		"its own text decoding": !decodesAsEncoded[map[string]customText](),
		"an int-keyed map":      !decodesAsEncoded[map[int]string](),
		"a channel":             !decodesAsEncoded[chan int](),
	} {
		if !got {
			t.Errorf("%s: wrong verdict", name)
		}
	}
}

// A plain type's values come back equal from their encoding: the premise of
// returning the decided answer.
func TestPlainAnswersDecodeAsEncoded(t *testing.T) {
	host := "api.example.com"
	values := []plainAnswer{
		{},
		{ID: "a", N: 0, Tags: []string{}, Counts: map[string]int64{}, Raw: []byte{}},
		{ID: "é\u2028<&>", N: -3, Ratio: 0.1, Host: &host, Tags: []string{"x", ""}, Counts: map[string]int64{"k": 1 << 60},
			At: time.Date(2026, 11, 27, 7, 0, 0, 123456000, time.UTC), Nested: &plainAnswer{ID: "n"},
			ByName: map[string]*inner{"a": {A: [2]uint8{1, 255}}, "nil": nil}, Raw: []byte{0, 1, 2}, Flagged: true},
	}
	for i, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back plainAnswer
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(raw) || !equalAnswers(v, back) {
			t.Errorf("value %d: %+v came back as %+v", i, v, back)
		}
	}
}

func equalAnswers(a, b plainAnswer) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb) && a.At.Equal(b.At) && (a.Host == nil) == (b.Host == nil) &&
		(a.Tags == nil) == (b.Tags == nil) && (a.Counts == nil) == (b.Counts == nil) && (a.Raw == nil) == (b.Raw == nil)
}
