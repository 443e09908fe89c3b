package publishing_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/module"
	pubmod "github.com/platform/backend/internal/modules/publishing"
)

// TestTokensSealedWithThePlatformKeyRing: a connection's tokens are sealed
// under the platform key ring's active key (never in clear in the row or
// the log); a token sealed by publishing's own key before the ring still
// opens, and is re-sealed under the ring by the next refresh and by the
// sweep; a second platform whose ring makes another key active re-seals
// when its leader starts, and publishing goes on. Each post reaches the
// network once. The gateway's credentials share the ring: one
// configuration seals both, and the one rotation moves both.
func TestTokensSealedWithThePlatformKeyRing(t *testing.T) {
	f := newFake(t)
	legacy := bytes.Repeat([]byte{7}, 32)
	k1, k2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	ring1, err := keyring.FromKeys("k1", map[string][]byte{"k1": k1})
	if err != nil {
		t.Fatal(err)
	}
	logs := &apptest.LogSink{}
	withRing := func(r keyring.Ring) func(*app.Config) {
		return func(cfg *app.Config) {
			cfg.KeyRing.Ring = r
			pub := module.SectionOf[*pubmod.Config](cfg.Modules)
			pub.LegacyTokenKey = legacy
			pub.Publisher.RefreshBefore = 3 * time.Hour // the fake's tokens live 2h: every use refreshes
		}
	}
	opts := withFake(f, withRing(ring1))
	opts.LogTo = logs
	h := apptest.Start(t, opts)
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	var connID string
	if err := h.App.Pool.QueryRow(t.Context(), `SELECT connection_id FROM publishing_credentials WHERE brand_id=$1`, b.BrandID).Scan(&connID); err != nil {
		t.Fatal(err)
	}
	creds := apptest.Provided[*pubcmd.Credentials](h)
	conn, err := creds.Load(t.Context(), connID)
	if err != nil || conn.Token.AccessToken == "" {
		t.Fatalf("load: %v", err)
	}
	keyOf := func(h *apptest.Harness) (string, []byte) {
		var key *string
		var sealed []byte
		if err := h.App.Pool.QueryRow(t.Context(), `SELECT key_id, sealed FROM publishing_credentials WHERE connection_id=$1`, connID).
			Scan(&key, &sealed); err != nil {
			t.Fatal(err)
		}
		if key == nil {
			return "legacy", sealed
		}
		return *key, sealed
	}
	if key, sealed := keyOf(h); key != "k1" || bytes.Contains(sealed, []byte(conn.Token.AccessToken)) {
		t.Fatalf("sealed under %s, clear: %v", key, bytes.Contains(sealed, []byte(conn.Token.AccessToken)))
	}
	// A gateway credential of the same organization, under the same ring.
	res := h.Do(t, "gateway", http.MethodPost, "/api/connections", "", map[string]any{"provider": "payments_provider_a", "name": "stripe",
		"credentials": map[string]any{"secret_key": "sk_test_sandbox_not_a_secret"}})
	apptest.Must(t, res, http.StatusCreated, "gateway connection")
	gatewayKey := func(h *apptest.Harness) string {
		var key string
		if err := h.App.Pool.QueryRow(t.Context(), `SELECT key_id FROM gateway_credentials WHERE organization_id=$1`, h.OrgID).Scan(&key); err != nil {
			t.Fatal(err)
		}
		return key
	}
	if key := gatewayKey(h); key != "k1" {
		t.Fatalf("the gateway's credential is under %s, want k1", key)
	}
	toLegacy := func() {
		c, err := creds.Load(t.Context(), connID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.App.Pool.Exec(t.Context(), `UPDATE publishing_credentials SET key_id=NULL, nonce=NULL, sealed=$2 WHERE connection_id=$1`,
			connID, sealLegacy(t, legacy, c, connID)); err != nil {
			t.Fatal(err)
		}
	}

	// A token sealed before the ring opens, and the refresh re-seals it.
	toLegacy()
	p := createPost(t, h, "", post(b.BrandID, "Sealed the old way", time.Now()))
	waitPost(t, h, p.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	if key, _ := keyOf(h); key != "k1" {
		t.Fatalf("after a refresh the tokens are under %s, want k1", key)
	}
	// The sweep moves a legacy row that no refresh touches.
	toLegacy()
	if r, err := creds.Reseal(t.Context(), slog.Default()); err != nil || r.Resealed != 1 || r.Unreadable != 0 {
		t.Fatalf("reseal %+v %v", r, err)
	}
	if key, _ := keyOf(h); key != "k1" {
		t.Fatalf("after the sweep the tokens are under %s, want k1", key)
	}
	h.Stop()

	// Rotation: the ring keeps k1 and makes k2 active.
	ring2, err := keyring.FromKeys("k2", map[string][]byte{"k1": k1, "k2": k2})
	if err != nil {
		t.Fatal(err)
	}
	h2 := apptest.Start(t, withFake(f, withRing(ring2), func(cfg *app.Config) { cfg.DatabaseURL, cfg.Kafka = h.Config.DatabaseURL, h.Config.Kafka }))
	apptest.Eventually(t, 30*time.Second, "re-sealed under k2", func() bool { key, _ := keyOf(h2); return key == "k2" })
	apptest.Eventually(t, 30*time.Second, "the gateway's re-sealed under k2", func() bool {
		var key string
		err := h2.App.Pool.QueryRow(t.Context(), `SELECT key_id FROM gateway_credentials WHERE organization_id=$1`, h.OrgID).Scan(&key)
		return err == nil && key == "k2"
	})
	p2 := createPost(t, h2, h.APIKey, post(b.BrandID, "Sealed under the new key", time.Now()))
	waitPost(t, h2, p2.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	if n := f.PostCount(); n != 2 {
		t.Fatalf("the network received %d posts, want 2", n)
	}
	c, err := apptest.Provided[*pubcmd.Credentials](h2).Load(t.Context(), connID)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{conn.Token.AccessToken, conn.Token.RefreshToken, c.Token.AccessToken, c.Token.RefreshToken} {
		if secret != "" && strings.Contains(logs.String(), secret) {
			t.Fatal("a token is in the log")
		}
	}
}

// sealLegacy seals as publishing did with its own key before the ring: a
// random nonce before the AES-256-GCM ciphertext, the connection id as
// additional data.
func sealLegacy(t *testing.T, key []byte, c any, connID string) []byte {
	t.Helper()
	plain, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return aead.Seal(nonce, nonce, plain, []byte(connID))
}
