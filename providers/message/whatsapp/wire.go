package whatsapp

import (
	"encoding/json"

	"github.com/platform/backend/providers/message"
)

// sendRequest is the body of POST /{version}/{phone_number_id}/messages.
type sendRequest struct {
	MessagingProduct string        `json:"messaging_product"` // always "whatsapp"
	RecipientType    string        `json:"recipient_type"`    // always "individual"
	To               string        `json:"to"`
	Type             string        `json:"type"`
	Text             *textBody     `json:"text,omitempty"`
	Template         *templateBody `json:"template,omitempty"`
}

type textBody struct {
	Body       string `json:"body"`
	PreviewURL bool   `json:"preview_url"`
}

type templateBody struct {
	Name       string            `json:"name"`
	Language   language          `json:"language"`
	Components []json.RawMessage `json:"components,omitempty"`
}

type language struct {
	Code string `json:"code"`
}

// sendResponse is the success answer.
type sendResponse struct {
	MessagingProduct string `json:"messaging_product"`
	Contacts         []struct {
		Input string `json:"input"`
		WaID  string `json:"wa_id"`
	} `json:"contacts"`
	Messages []struct {
		ID            string `json:"id"`
		MessageStatus string `json:"message_status"`
	} `json:"messages"`
}

// errorResponse is the Graph API's error answer.
type errorResponse struct {
	Error struct {
		Message      string `json:"message"`
		Type         string `json:"type"`
		Code         int    `json:"code"`
		ErrorSubcode int    `json:"error_subcode"`
		FBTraceID    string `json:"fbtrace_id"`
	} `json:"error"`
}

func toWire(m message.Outgoing) sendRequest {
	r := sendRequest{MessagingProduct: "whatsapp", RecipientType: "individual", To: m.To, Type: m.Kind()}
	if r.Type == message.TypeTemplate {
		r.Template = &templateBody{Name: m.Template.Name, Language: language{Code: m.Template.Language}, Components: m.Template.Components}
	} else {
		r.Text = &textBody{Body: m.Text, PreviewURL: m.PreviewURL}
	}
	return r
}
