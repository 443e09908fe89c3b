package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email"
)

// SendEmail is email.send's input (seed 001), also the library's.
type SendEmail struct {
	// To is an address or an array of at least one.
	To            json.RawMessage   `json:"to"`
	Subject       string            `json:"subject"`
	ProfileID     *string           `json:"profile_id"`
	Provider      *string           `json:"provider"`
	From          *string           `json:"from"`
	HTML          *string           `json:"html"`
	Text          *string           `json:"text"`
	ReplyTo       *string           `json:"reply_to"`
	Cc            []string          `json:"cc"`
	Bcc           []string          `json:"bcc"`
	Tags          []EmailTag        `json:"tags"`
	MessageStream *string           `json:"message_stream"`
	AppID         *string           `json:"app_id"`
	Attachments   []EmailAttachment `json:"attachments"`
}

// EmailTag is one of email.send's tags.
type EmailTag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// EmailAttachment is one of email.send's attachments (content: base64).
type EmailAttachment struct {
	Filename    string  `json:"filename"`
	Content     string  `json:"content"`
	ContentType *string `json:"content_type"`
}

// SendEmail sends one email through the metered path (units: one message
// per recipient). The profile (named, else the organization's default)
// chooses the sender, reply-to, connection and app; the members of the
// request win over the profile's. With an Idempotency-Key a retry answers
// the first result and sends nothing.
func (e *Edge) SendEmail(ctx context.Context, m commands.Meta, in SendEmail) (commands.Result[domain.DeliveryState], error) {
	profile, err := e.emailProfile(ctx, m.OrganizationID, in.ProfileID)
	if err != nil {
		return commands.Result[domain.DeliveryState]{}, err
	}
	provider := ""
	if in.Provider != nil {
		provider = *in.Provider
	}
	link, err := e.emailLink(ctx, m.OrganizationID, provider, profile)
	if err != nil {
		return commands.Result[domain.DeliveryState]{}, err
	}
	msg, err := outgoing(in, profile)
	if err != nil {
		return commands.Result[domain.DeliveryState]{}, err
	}
	appID := firstOf(ptr(in.AppID), ptr(profileAppID(profile)), DefaultAppID)
	msg.IdempotencyKey = deliveryID(m, "email.send")
	caller := CallerOf(m, appID, "other")
	return e.deliver(ctx, m, send{Channel: domain.ChannelEmail, Action: "email.send", Model: "email", Operation: prices.OpEmail,
		Link: link, Caller: caller, Recipients: msg.Recipients(), Estimate: prices.Units{Messages: int64(msg.Recipients())},
		RetrySafe: link.Provider == domain.ProviderEmailB, // Resend honours the idempotency key
		Do:        func(ctx context.Context) (delivery.Receipt, error) { return link.Email.Deliver(ctx, msg) }})
}

// emailProfile is the named profile (active), else the default one, else none.
func (e *Edge) emailProfile(ctx context.Context, org string, id *string) (*domain.EmailProfile, error) {
	history, err := e.h.store.LoadLatest(ctx, domain.EmailProfilesStreamID(org), domain.SnapshotSchema)
	if err != nil {
		return nil, err
	}
	profiles, err := domain.LoadEmailProfiles(commands.Recorded(history))
	if err != nil {
		return nil, err
	}
	if id == nil {
		if p, ok := profiles.Default(); ok {
			return &p, nil
		}
		return nil, nil
	}
	p, ok := profiles.Profile(*id)
	switch {
	case !ok:
		return nil, errs.InvalidField("/profile_id", "no such email profile")
	case !p.IsActive:
		return nil, errs.InvalidField("/profile_id", "the email profile is not active")
	}
	return &p, nil
}

// ProfileCannotSend is the detail of a profile whose connection is gone,
// disconnected or of another kind: data, not the request's shape.
const ProfileCannotSend = "the profile's connection cannot send"

// emailLink is the connection of an email: the profile's, else the
// organization's own of the provider, else the platform's.
func (e *Edge) emailLink(ctx context.Context, org, provider string, p *domain.EmailProfile) (Link, error) {
	connection := ""
	if p != nil {
		connection = p.ConnectionID
	}
	if provider == "" && connection == "" {
		provider = domain.ProviderEmailA
	}
	l, err := e.Resolve(ctx, org, provider, connection)
	if err != nil {
		if connection != "" {
			e := errs.InvalidField("/profile_id", ProfileCannotSend)
			e.Message = "the profile's connection cannot send: " + typedMessage(err)
			return l, e
		}
		return l, err
	}
	if l.Email == nil {
		return l, errs.InvalidField("/provider", l.Provider+" does not send email")
	}
	return l, nil
}

// outgoing builds the provider-neutral message; what no provider would
// take is 422 here, before anything is reserved.
func outgoing(in SendEmail, p *domain.EmailProfile) (email.Outgoing, error) {
	var msg email.Outgoing
	var fields []errs.Field
	to, err := addressList(in.To)
	if err != nil {
		fields = append(fields, errs.Field{Pointer: "/to", Detail: err.Error()})
	}
	msg.To = to
	switch {
	case in.From != nil:
		a, err := email.ParseAddress(*in.From)
		if err != nil {
			fields = append(fields, errs.Field{Pointer: "/from", Detail: "must be an address or \"Name <address>\""})
		}
		msg.From = a
	case p != nil:
		msg.From = email.Address{Name: p.FromName, Email: p.FromEmail}
	default:
		fields = append(fields, errs.Field{Pointer: "/from", Detail: "required when no email profile applies"})
	}
	switch {
	case in.ReplyTo != nil:
		msg.ReplyTo = []email.Address{{Email: *in.ReplyTo}}
	case p != nil && p.ReplyToEmail != nil:
		msg.ReplyTo = []email.Address{{Email: *p.ReplyToEmail}}
	}
	for _, a := range in.Cc {
		msg.Cc = append(msg.Cc, email.Address{Email: a})
	}
	for _, a := range in.Bcc {
		msg.Bcc = append(msg.Bcc, email.Address{Email: a})
	}
	msg.Subject, msg.HTML, msg.Text, msg.MessageStream = in.Subject, ptr(in.HTML), ptr(in.Text), ptr(in.MessageStream)
	for _, t := range in.Tags {
		msg.Tags = append(msg.Tags, email.Tag{Name: t.Name, Value: t.Value})
	}
	for _, a := range in.Attachments {
		msg.Attachments = append(msg.Attachments, email.Attachment{Filename: a.Filename, Content: a.Content, ContentType: ptr(a.ContentType)})
	}
	if len(fields) > 0 {
		return msg, errs.Invalid(fields...)
	}
	if err := msg.Validate("email"); err != nil {
		return msg, invalidMessage(err)
	}
	return msg, nil
}

// invalidMessage turns the adapters' own check ("attachments/2: content:
// not base64") into a 422 at that member.
func invalidMessage(err error) error {
	reason := "the message cannot be sent"
	var de *delivery.Error
	if errors.As(err, &de) {
		reason = de.Reason
	}
	member, detail, found := strings.Cut(reason, ": ")
	if !found {
		return errs.InvalidField("", reason)
	}
	return errs.InvalidField("/"+member, detail)
}

// addressList reads `to`: one address or an array of at least one.
func addressList(raw json.RawMessage) ([]email.Address, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []email.Address{{Email: one}}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return nil, fmt.Errorf("must be an email address or an array of at least one")
	}
	out := make([]email.Address, 0, len(many))
	for _, a := range many {
		out = append(out, email.Address{Email: a})
	}
	return out, nil
}

func profileAppID(p *domain.EmailProfile) *string {
	if p == nil {
		return nil
	}
	return p.AppID
}

func ptr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// typedMessage is a typed error's message (its code's words otherwise).
func typedMessage(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Message
	}
	return "unavailable"
}
