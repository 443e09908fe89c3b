package resend

import (
	"maps"
	"slices"

	"github.com/platform/backend/providers/email"
)

// sendRequest is the body of POST /emails.
type sendRequest struct {
	From        string            `json:"from"`
	To          []string          `json:"to"`
	Cc          []string          `json:"cc,omitempty"`
	Bcc         []string          `json:"bcc,omitempty"`
	ReplyTo     []string          `json:"reply_to,omitempty"`
	Subject     string            `json:"subject"`
	HTML        string            `json:"html,omitempty"`
	Text        string            `json:"text,omitempty"`
	Tags        []tag             `json:"tags,omitempty"`
	Attachments []attachment      `json:"attachments,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
}

type tag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type attachment struct {
	Filename    string `json:"filename"`
	Content     string `json:"content"`
	ContentType string `json:"content_type,omitempty"`
}

// sendResponse is Resend's success answer.
type sendResponse struct {
	ID string `json:"id"`
}

// errorResponse is Resend's error answer.
type errorResponse struct {
	StatusCode int    `json:"statusCode"`
	Name       string `json:"name"`
	Message    string `json:"message"`
}

func toWire(m email.Outgoing) sendRequest {
	r := sendRequest{From: m.From.String(), To: addresses(m.To), Cc: addresses(m.Cc), Bcc: addresses(m.Bcc),
		ReplyTo: addresses(m.ReplyTo), Subject: m.Subject, HTML: m.HTML, Text: m.Text}
	at := map[string]int{} // tag name -> index, so metadata replaces rather than repeats
	for _, t := range m.Tags {
		at[t.Name] = len(r.Tags)
		r.Tags = append(r.Tags, tag{Name: t.Name, Value: t.Value})
	}
	for _, k := range slices.Sorted(maps.Keys(m.Metadata)) {
		if i, ok := at[k]; ok {
			r.Tags[i].Value = m.Metadata[k]
			continue
		}
		r.Tags = append(r.Tags, tag{Name: k, Value: m.Metadata[k]})
	}
	for _, a := range m.Attachments {
		r.Attachments = append(r.Attachments, attachment{Filename: a.Filename, Content: a.Content, ContentType: a.ContentType})
	}
	if len(m.Headers) > 0 {
		r.Headers = maps.Clone(m.Headers)
	}
	return r
}

func addresses(list []email.Address) []string {
	if len(list) == 0 {
		return nil
	}
	s := make([]string, len(list))
	for i, a := range list {
		s[i] = a.String()
	}
	return s
}
