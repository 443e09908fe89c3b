package stripe

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestEncodeFormFollowsStripesConventions(t *testing.T) {
	eleven := make([]any, 11)
	for i := range eleven {
		eleven[i] = string(rune('a' + i))
	}
	tests := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"nothing", nil, ""},
		{"scalars sorted", map[string]any{"mode": "payment", "currency": "eur"}, "currency=eur&mode=payment"},
		{"nested object", map[string]any{"metadata": map[string]any{"order": "1", "cart": "c9"}}, "metadata[cart]=c9&metadata[order]=1"},
		{"nested object of strings", map[string]any{"metadata": map[string]string{"b": "2", "a": "1"}}, "metadata[a]=1&metadata[b]=2"},
		{"array of objects", map[string]any{"line_items": []any{
			map[string]any{"price": "price_1", "quantity": 2},
			map[string]any{"price_data": map[string]any{"currency": "eur", "unit_amount": 500}, "quantity": 1},
		}}, "line_items[0][price]=price_1&line_items[0][quantity]=2&line_items[1][price_data][currency]=eur&line_items[1][price_data][unit_amount]=500&line_items[1][quantity]=1"},
		{"array of scalars indexed", map[string]any{"expand": []any{"customer", "latest_invoice.payment_intent"}}, "expand[0]=customer&expand[1]=latest_invoice.payment_intent"},
		{"array of strings", map[string]any{"payment_method_types": []string{"card", "sepa_debit"}}, "payment_method_types[0]=card&payment_method_types[1]=sepa_debit"},
		{"indices in number order", map[string]any{"x": eleven}, "x[0]=a&x[1]=b&x[2]=c&x[3]=d&x[4]=e&x[5]=f&x[6]=g&x[7]=h&x[8]=i&x[9]=j&x[10]=k"},
		{"booleans", map[string]any{"confirm": true, "livemode": false}, "confirm=true&livemode=false"},
		{"null unsets", map[string]any{"description": nil, "metadata": map[string]any{"old": nil}}, "description=&metadata[old]="},
		{"empty array clears", map[string]any{"default_tax_rates": []any{}}, "default_tax_rates="},
		{"empty object sends nothing", map[string]any{"metadata": map[string]any{}, "name": "x"}, "name=x"},
		{"empty string unsets all metadata", map[string]any{"metadata": ""}, "metadata="},
		{"unicode", map[string]any{"name": "Zoë 東京 🚀"}, "name=Zo%C3%AB+%E6%9D%B1%E4%BA%AC+%F0%9F%9A%80"},
		{"unicode key", map[string]any{"metadata": map[string]any{"clé": "v"}}, "metadata[cl%C3%A9]=v"},
		{"reserved characters escaped", map[string]any{"description": "a&b=c+d%e/f?", "metadata": map[string]any{"a b": "x"}}, "description=a%26b%3Dc%2Bd%25e%2Ff%3F&metadata[a+b]=x"},
		{"integers", map[string]any{"a": 7, "b": int64(-9007199254740993), "c": uint64(18446744073709551615), "d": int32(3)}, "a=7&b=-9007199254740993&c=18446744073709551615&d=3"},
		{"floats without exponent", map[string]any{"big": 1e21, "small": 0.000001, "frac": 12.5, "whole": 2000.0, "f32": float32(0.1)}, "big=1000000000000000000000&f32=0.1&frac=12.5&small=0.000001&whole=2000"},
		{"json numbers", map[string]any{"exp": json.Number("1e3"), "dec": json.Number("-0.25"), "huge": json.Number("123456789012345678901234567890")}, "dec=-0.25&exp=1000&huge=123456789012345678901234567890"},
		{"deep nesting sorted at each level", map[string]any{"b": 1, "a": map[string]any{"d": []any{map[string]any{"z": 1, "y": 2}}, "c": true}}, "a[c]=true&a[d][0][y]=2&a[d][0][z]=1&b=1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := encodeForm(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestEncodeFormIsDeterministic(t *testing.T) {
	params := map[string]any{}
	for _, k := range strings.Fields("q w e r t y u i o p a s d f g h j k l z x c v b n m") {
		params[k] = map[string]any{"z": k, "a": []any{k, map[string]any{"n": 1, "m": 2}}}
	}
	first, err := encodeForm(params)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if again, _ := encodeForm(params); again != first {
			t.Fatalf("encoding changed:\n%s\n%s", first, again)
		}
	}
}

func TestEncodeFormRefusesWhatStripeCannotRead(t *testing.T) {
	deep := map[string]any{"leaf": "x"}
	for range maxFormDepth + 1 {
		deep = map[string]any{"n": deep}
	}
	tests := map[string]map[string]any{
		"NaN":              {"a": math.NaN()},
		"infinity":         {"a": math.Inf(1)},
		"not a number":     {"a": json.Number("12abc")},
		"NaN as number":    {"a": json.Number("NaN")},
		"exponent too big": {"a": json.Number("1e400")},
		"unsupported type": {"a": struct{}{}},
		"empty key":        {"": "x"},
		"empty nested key": {"metadata": map[string]any{"": "x"}},
		"bracket in key":   {"metadata": map[string]any{"a[b]": "x"}},
		"too deep":         deep,
	}
	for name, params := range tests {
		t.Run(name, func(t *testing.T) {
			if got, err := encodeForm(params); err == nil {
				t.Fatalf("encoded %q", got)
			}
		})
	}
}
