package fake

import (
	"reflect"
	"testing"
)

func TestDecodeFormRebuildsNesting(t *testing.T) {
	tests := []struct {
		raw  string
		want map[string]any
	}{
		{"", map[string]any{}},
		{"mode=payment&currency=eur", map[string]any{"mode": "payment", "currency": "eur"}},
		{"metadata[order]=1&metadata[cart]=c9", map[string]any{"metadata": map[string]any{"order": "1", "cart": "c9"}}},
		{"line_items[0][price]=price_1&line_items[0][quantity]=2&line_items[1][price]=price_2",
			map[string]any{"line_items": []any{map[string]any{"price": "price_1", "quantity": "2"}, map[string]any{"price": "price_2"}}}},
		{"expand[0]=customer&expand[1]=invoice", map[string]any{"expand": []any{"customer", "invoice"}}},
		{"expand[]=customer&expand[]=invoice", map[string]any{"expand": []any{"customer", "invoice"}}},
		{"items[][price]=p1&items[][quantity]=1&items[][price]=p2", map[string]any{"items": []any{
			map[string]any{"price": "p1", "quantity": "1"}, map[string]any{"price": "p2"}}}},
		{"x[10]=k&x[2]=c", map[string]any{"x": []any{nil, nil, "c", nil, nil, nil, nil, nil, nil, nil, "k"}}},
		{"name=Zo%C3%AB+%E6%9D%B1%E4%BA%AC&note=a%26b%3Dc", map[string]any{"name": "Zoë 東京", "note": "a&b=c"}},
		{"metadata%5Border%5D=1", map[string]any{"metadata": map[string]any{"order": "1"}}}, // escaped brackets are brackets, as on Rack
		{"description=&metadata[old]=", map[string]any{"description": "", "metadata": map[string]any{"old": ""}}},
	}
	for _, tc := range tests {
		got, err := decodeForm(tc.raw)
		if err != nil {
			t.Errorf("%q: %v", tc.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\ngot  %#v\nwant %#v", tc.raw, got, tc.want)
		}
	}
}

func TestDecodeFormRefusesContradictions(t *testing.T) {
	for _, raw := range []string{
		"a=1&a[b]=2",       // a value and an object
		"a[b]=2&a=1",       // the same, the other way round
		"a[0]=1&a[b]=2",    // an array and an object
		"[x]=1",            // no name
		"a[b=1",            // unclosed bracket
		"a[b]c=1",          // text after a bracket
		"a=%zz",            // bad escape
		"metadata[][x]=%1", // bad escape deeper
	} {
		if got, err := decodeForm(raw); err == nil {
			t.Errorf("%q decoded to %#v", raw, got)
		}
	}
}
