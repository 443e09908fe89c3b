package email

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/platform/backend/providers/delivery"
)

// Sandbox is the clearly named local provider: it sends nothing, keeps the
// last SandboxKeep messages in memory and logs the recipients' domains and
// the subject (never an address, personal data, nor the body, which may
// hold a login link).
type Sandbox struct {
	Log *slog.Logger

	mu   sync.Mutex
	sent []Outgoing
}

const providerSandbox = "sandbox"

// SandboxKeep bounds the sandbox's memory.
const SandboxKeep = 100

var (
	_ Sender   = (*Sandbox)(nil)
	_ Provider = (*Sandbox)(nil)
)

// sandboxFrom is the sender of simple messages, which name none.
var sandboxFrom = Address{Email: "noreply@sandbox.invalid"}

func (s *Sandbox) Send(ctx context.Context, m Message) error {
	_, err := s.Deliver(ctx, m.outgoing(sandboxFrom))
	return err
}

// Deliver validates like a real provider, then keeps the message.
func (s *Sandbox) Deliver(_ context.Context, m Outgoing) (delivery.Receipt, error) {
	if err := m.Validate(providerSandbox); err != nil {
		return delivery.Receipt{}, err
	}
	s.mu.Lock()
	id := newMessageID(m.IdempotencyKey, m.From.Email)
	s.sent = append(s.sent, m)
	if len(s.sent) > SandboxKeep {
		s.sent = append([]Outgoing(nil), s.sent[len(s.sent)-SandboxKeep:]...)
	}
	s.mu.Unlock()
	if s.Log != nil {
		domains := make([]string, 0, len(m.To))
		for _, a := range m.To {
			_, d, _ := strings.Cut(a.Email, "@")
			domains = append(domains, d)
		}
		s.Log.Warn("sandbox email provider: message kept, not sent (configure a provider to deliver)",
			"to_domains", domains, "recipients", m.Recipients(), "subject", m.Subject)
	}
	return delivery.Receipt{Provider: providerSandbox, MessageID: id, Units: delivery.Units{Messages: m.Recipients()}}, nil
}

// Sent lists what the sandbox kept, oldest first.
func (s *Sandbox) Sent() []Outgoing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Outgoing(nil), s.sent...)
}
