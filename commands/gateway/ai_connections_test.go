package gateway_test

import (
	"strings"
	"testing"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/catalog"
)

// TestStartRefusesUnpricedDefaults: a configured provider whose default
// model has no price in the current table stops the start; the registry's
// defaults are all priced.
func TestStartRefusesUnpricedDefaults(t *testing.T) {
	all := gatewaycmd.StaticAI{}
	for _, info := range ai.Providers() {
		p, err := catalog.New(info.ID, catalog.Connection{APIKey: "k", AccountID: "acct"})
		if err != nil {
			t.Fatal(err)
		}
		all[info.ID] = gatewaycmd.AIConnection{ID: "platform", Provider: p, Info: info}
	}
	if err := all.CheckPrices(); err != nil {
		t.Fatalf("the registry's default models: %v", err)
	}
	info, _ := ai.Lookup(ai.Provider2)
	info.Models.Chat = "claude-unpriced-9"
	p, _ := catalog.New(ai.Provider2, catalog.Connection{APIKey: "k", Models: info.Models})
	err := gatewaycmd.StaticAI{ai.Provider2: {Provider: p, Info: info}}.CheckPrices()
	if err == nil || !strings.Contains(err.Error(), "claude-unpriced-9") {
		t.Fatalf("an unpriced default model: %v", err)
	}
}
