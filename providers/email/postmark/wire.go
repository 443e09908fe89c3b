package postmark

import (
	"maps"
	"slices"
	"strings"

	"github.com/platform/backend/providers/email"
)

// sendRequest is the body of POST /email.
type sendRequest struct {
	From          string            `json:"From"`
	To            string            `json:"To"`
	Cc            string            `json:"Cc,omitempty"`
	Bcc           string            `json:"Bcc,omitempty"`
	ReplyTo       string            `json:"ReplyTo,omitempty"`
	Subject       string            `json:"Subject"`
	HtmlBody      string            `json:"HtmlBody,omitempty"`
	TextBody      string            `json:"TextBody,omitempty"`
	Tag           string            `json:"Tag,omitempty"`
	Metadata      map[string]string `json:"Metadata,omitempty"`
	Headers       []header          `json:"Headers,omitempty"`
	MessageStream string            `json:"MessageStream,omitempty"`
	Attachments   []attachment      `json:"Attachments,omitempty"`
}

type header struct {
	Name  string `json:"Name"`
	Value string `json:"Value"`
}

type attachment struct {
	Name        string `json:"Name"`
	Content     string `json:"Content"`
	ContentType string `json:"ContentType"`
}

// sendResponse is Postmark's answer, success or error alike.
type sendResponse struct {
	To          string `json:"To"`
	SubmittedAt string `json:"SubmittedAt"`
	MessageID   string `json:"MessageID"`
	ErrorCode   int    `json:"ErrorCode"`
	Message     string `json:"Message"`
}

func toWire(m email.Outgoing) sendRequest {
	r := sendRequest{From: m.From.String(), To: joinAddresses(m.To), Cc: joinAddresses(m.Cc), Bcc: joinAddresses(m.Bcc),
		ReplyTo: joinAddresses(m.ReplyTo), Subject: m.Subject, HtmlBody: m.HTML, TextBody: m.Text,
		MessageStream: m.MessageStream}
	if len(m.Tags) > 0 {
		r.Tag = m.Tags[0].Value
	}
	if len(m.Tags)+len(m.Metadata) > 0 {
		r.Metadata = map[string]string{}
		for _, t := range m.Tags {
			r.Metadata[t.Name] = t.Value
		}
		maps.Copy(r.Metadata, m.Metadata)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		r.Headers = append(r.Headers, header{Name: k, Value: m.Headers[k]})
	}
	for _, a := range m.Attachments {
		ct := a.ContentType
		if ct == "" {
			ct = email.DefaultContentType
		}
		r.Attachments = append(r.Attachments, attachment{Name: a.Filename, Content: a.Content, ContentType: ct})
	}
	return r
}

func joinAddresses(list []email.Address) string {
	s := make([]string, len(list))
	for i, a := range list {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}
