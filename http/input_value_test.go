package httpapi

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/platform/backend/domain/errs"
)

// The input is validated as the object assembleInput built, not parsed
// again from its encoding: every verdict, valid or not, and every failing
// member is the one the encoding gets, and an input whose encoding would
// differ from the object (a path or query text that is not UTF-8, a float
// from the query) is validated from the encoding.
func TestInputValidatedAsAssembled(t *testing.T) {
	a := &Action{Name: "things.update", OutputSchema: []byte(`{"type":"object"}`), InputSchema: []byte(`{
		"type": "object", "additionalProperties": false, "required": ["thingId", "title"],
		"properties": {
			"thingId": {"type": "string", "pattern": "^[a-z0-9_]+$", "maxLength": 8},
			"title": {"type": "string", "minLength": 1, "maxLength": 5},
			"count": {"type": "integer", "minimum": 1},
			"ratio": {"type": "number", "multipleOf": 0.1},
			"tags": {"type": "array", "items": {"enum": ["a", "b"]}},
			"at": {"type": "string", "format": "date-time"}
		}}`)}
	if err := a.withDefaults(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, id, query, body string
		fromValue             bool
		invalid               []string // failing members; none when valid
	}{
		{name: "valid", id: "t1", body: `{"title":"ab","count":2,"tags":["a"],"at":"2026-01-02T03:04:05Z"}`, fromValue: true},
		{name: "integral float", id: "t1", body: `{"title":"ab","count":2.0}`, fromValue: true},
		{name: "ratio decimal", id: "t1", body: `{"title":"ab","ratio":1.1}`, fromValue: true},
		{name: "members wrong", id: "T!", body: `{"title":"","count":0,"tags":["c"],"at":"soon","extra":1}`, fromValue: true,
			invalid: []string{"/at", "/count", "/extra", "/tags/0", "/thingId", "/title"}},
		{name: "title missing", id: "t1", body: `{"count":"2"}`, fromValue: true, invalid: []string{"/count", "/title"}},
		{name: "long title in runes", id: "t1", body: `{"title":"ééééé"}`, fromValue: true},
		{name: "query integer", id: "t1", query: "title=ab&count=3", fromValue: true},
		{name: "query integer bad", id: "t1", query: "title=ab&count=x", fromValue: true, invalid: []string{"/count"}},
		{name: "query float", id: "t1", query: "title=ab&ratio=1.1"},
		{name: "query text not UTF-8", id: "t1", query: "title=%FF"},
		{name: "path text not UTF-8", id: "t\xff", body: `{"title":"ab"}`, invalid: []string{"/thingId"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("PATCH", "/things/x?"+tc.query, strings.NewReader(tc.body))
			r = mux.SetURLVars(r, map[string]string{"thingId": tc.id})
			raw, value, err := a.assembleInput(r)
			if err != nil {
				t.Fatal(err)
			}
			if (value != nil) != tc.fromValue {
				t.Fatalf("validated from the object: %v, want %v", value != nil, tc.fromValue)
			}
			got, want := a.validateInput(raw, value), a.validateInput(raw, nil)
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Fatalf("validated as the object: %v\nas its encoding: %v", got, want)
			}
			var pointers []string
			if e, ok := errs.As(got); ok {
				for _, f := range e.Fields {
					pointers = append(pointers, f.Pointer)
				}
			} else if got != nil {
				t.Fatalf("not a typed error: %v", got)
			}
			if strings.Join(pointers, " ") != strings.Join(tc.invalid, " ") {
				t.Fatalf("failing members %v, want %v (%v)", pointers, tc.invalid, got)
			}
		})
	}
}
