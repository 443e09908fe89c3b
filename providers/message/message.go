// Package message sends instant messages through provider adapters
// (providers/message/<provider>): the full Outgoing message the usage
// gateway's instant_message.send takes, delivered by a Provider that
// returns a delivery.Receipt or a classified *delivery.Error.
package message

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/outcome"
)

// Provider delivers one instant message: what the gateway calls.
type Provider interface {
	Deliver(ctx context.Context, m Outgoing) (delivery.Receipt, error)
}

// Message types of instant_message.send.
const (
	TypeText     = "text"
	TypeTemplate = "template"
)

// Limits of instant_message.send (seed 001) that adapters enforce too.
const (
	MaxText         = 4096 // characters
	MinRecipient    = 5
	MaxRecipient    = 40
	MaxTemplateName = 512
)

// Outgoing is one instant message to one recipient.
type Outgoing struct {
	To string // the recipient's phone number, as the provider takes it
	// PhoneNumberID is the sending number; empty means the connection's
	// default.
	PhoneNumberID string
	Type          string // TypeText (the default when empty) or TypeTemplate
	Text          string // TypeText: the body, 1..4096 characters
	PreviewURL    bool   // TypeText: render a preview of the first URL
	Template      Template
}

// Template is a pre-approved message template; only templates may open a
// conversation outside the customer-service window.
type Template struct {
	Name     string
	Language string // e.g. "en_US"
	// Components are the provider's component objects (header, body and
	// button parameters), passed through as they are.
	Components []json.RawMessage
}

// Kind is the message's type with the default applied.
func (m Outgoing) Kind() string {
	if m.Type == "" {
		return TypeText
	}
	return m.Type
}

// Characters is the metered length of a text message (0 for a template,
// whose text the provider holds).
func (m Outgoing) Characters() int {
	if m.Kind() != TypeText {
		return 0
	}
	return utf8.RuneCountInString(m.Text)
}

// Validate checks what every adapter needs before anything is sent; its
// error is a *delivery.Error of kind Invalid. The member of the other type
// (Text of a template message, Template of a text) is ignored.
func (m Outgoing) Validate(provider string) error {
	invalid := func(reason string) error { return delivery.Fail(provider, outcome.Invalid, reason) }
	if n := utf8.RuneCountInString(m.To); n < MinRecipient || n > MaxRecipient || strings.ContainsAny(m.To, "\r\n") {
		return invalid("to: 5 to 40 characters")
	}
	switch m.Kind() {
	case TypeText:
		if n := utf8.RuneCountInString(m.Text); n < 1 || n > MaxText {
			return invalid("text: 1 to 4096 characters")
		}
	case TypeTemplate:
		t := m.Template
		if n := utf8.RuneCountInString(t.Name); n < 1 || n > MaxTemplateName {
			return invalid("template/name: 1 to 512 characters")
		}
		if n := utf8.RuneCountInString(t.Language); n < 2 || n > 20 {
			return invalid("template/language: 2 to 20 characters")
		}
		for _, c := range t.Components {
			var obj map[string]any
			if json.Unmarshal(c, &obj) != nil {
				return invalid("template/components: objects only")
			}
		}
	default:
		return invalid("type: text or template")
	}
	return nil
}
