package gateway

import (
	"errors"
	"testing"
	"time"
)

func TestRelaySignatures(t *testing.T) {
	cfg := EdgeConfig{RelaySigningKey: []byte("0123456789abcdef0123456789abcdef")}
	a, _ := cfg.relaySecret("conn_a")
	b, _ := cfg.relaySecret("conn_b")
	if again, _ := cfg.relaySecret("conn_a"); a == b || again != a {
		t.Fatalf("secrets: a %q (again %q), b %q", a, again, b)
	}
	if _, ok := (EdgeConfig{}).relaySecret("conn_a"); ok {
		t.Fatal("a secret without a signing key")
	}
	at := time.Unix(1_790_000_000, 0)
	body := []byte(`{"id":"evt_1"}`)
	sig := SignRelay(a, body, at)
	cases := []struct {
		name   string
		secret string
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		{"valid", a, sig, body, at.Add(time.Minute), nil},
		{"valid beside an unknown scheme", a, "v0=00," + sig, body, at, nil},
		{"another connection's secret", b, sig, body, at, ErrRelayUnsigned},
		{"changed body", a, sig, []byte(`{"id":"evt_2"}`), at, ErrRelayUnsigned},
		{"changed timestamp", a, "t=1790000001," + sig[len("t=1790000000,"):], body, at, ErrRelayUnsigned},
		{"no signature", a, "t=1790000000", body, at, ErrRelayUnsigned},
		{"empty", a, "", body, at, ErrRelayUnsigned},
		{"replayed later", a, sig, body, at.Add(6 * time.Minute), ErrRelayStale},
		{"from the future", a, sig, body, at.Add(-6 * time.Minute), ErrRelayStale},
	}
	for _, c := range cases {
		if err := VerifyRelay(c.secret, c.header, c.body, c.now, 5*time.Minute); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestRelaySigningKeyBounds(t *testing.T) {
	short := EdgeConfig{RelaySigningKey: make([]byte, 31)}.WithDefaults()
	if short.Validate() == nil {
		t.Fatal("a 31-byte relay signing key was accepted")
	}
	if err := (EdgeConfig{RelaySigningKey: make([]byte, 32)}).WithDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
}
