package gateway

import (
	"regexp"
	"slices"
)

// Provider ids of the connections beside the AI providers (ai_provider_1 ..
// ai_provider_5): seed 001's email enum, and neutral names for the instant
// message and payments providers in the seed's style.
const (
	ProviderEmailA    = "email_provider_a"    // Postmark
	ProviderEmailB    = "email_provider_b"    // Resend
	ProviderMessageA  = "message_provider_a"  // WhatsApp Cloud API
	ProviderPaymentsA = "payments_provider_a" // Stripe
)

// Kinds of provider a connection reaches.
const (
	KindAI       = "ai"
	KindEmail    = "email"
	KindMessage  = "message"
	KindPayments = "payments"
)

// ProviderSpec is what a connection of a provider holds: the secret
// members of its credential (required and optional), the plain settings it
// takes, and the path segment of its inbound webhooks ("" when the gateway
// receives none).
type ProviderSpec struct {
	Kind     string
	Secrets  []string // required credential members
	Optional []string // optional credential members (webhook secrets)
	// Settings are plain members (not secrets) with the pattern of their
	// values; Required lists the ones a connection must set.
	Settings         map[string]*regexp.Regexp
	RequiredSettings []string
	Webhook          string
}

var (
	digits    = regexp.MustCompile(`^[0-9]{1,32}$`)
	accountID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

// ConnectionProviders is every provider a connection may name. A new
// provider is one more row (and its adapter in the commands).
var ConnectionProviders = map[string]ProviderSpec{
	"ai_provider_1": {Kind: KindAI, Secrets: []string{"api_key"}},
	"ai_provider_2": {Kind: KindAI, Secrets: []string{"api_key"}},
	"ai_provider_3": {Kind: KindAI, Secrets: []string{"api_key"}},
	"ai_provider_4": {Kind: KindAI, Secrets: []string{"api_key"}},
	"ai_provider_5": {Kind: KindAI, Secrets: []string{"api_key"}, Settings: map[string]*regexp.Regexp{"account_id": accountID},
		RequiredSettings: []string{"account_id"}},
	ProviderEmailA: {Kind: KindEmail, Secrets: []string{"server_token"}, Optional: []string{"webhook_username", "webhook_password"},
		Webhook: "postmark"},
	ProviderEmailB: {Kind: KindEmail, Secrets: []string{"api_key"}, Optional: []string{"webhook_secret"}, Webhook: "resend"},
	ProviderMessageA: {Kind: KindMessage, Secrets: []string{"access_token"}, Optional: []string{"app_secret", "verify_token"},
		Settings: map[string]*regexp.Regexp{"phone_number_id": digits}, Webhook: "whatsapp"},
	ProviderPaymentsA: {Kind: KindPayments, Secrets: []string{"secret_key"}, Optional: []string{"webhook_secret"}, Webhook: "stripe"},
}

// ConnectionProviderIDs lists the providers, sorted (schemas).
func ConnectionProviderIDs() []string {
	out := make([]string, 0, len(ConnectionProviders))
	for id := range ConnectionProviders {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// SecretMembers lists every credential member any provider takes, sorted
// (the schema of `credentials`).
func SecretMembers() []string {
	var out []string
	for _, s := range ConnectionProviders {
		for _, m := range slices.Concat(s.Secrets, s.Optional) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// SettingMembers lists every setting any provider takes, sorted.
func SettingMembers() []string {
	var out []string
	for _, s := range ConnectionProviders {
		for m := range s.Settings {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// WebhookProvider is the provider whose webhooks arrive under a path
// segment ("stripe" -> payments_provider_a).
func WebhookProvider(segment string) (string, bool) {
	for id, s := range ConnectionProviders {
		if s.Webhook != "" && s.Webhook == segment {
			return id, true
		}
	}
	return "", false
}
