package whatsapp

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/platform/backend/providers/delivery"
)

// webhookPayload holds what the normalized events need of a notification:
// entry[].changes[].value.statuses[] with {id, status, timestamp,
// recipient_id, errors[{code}]}.
type webhookPayload struct {
	Object string `json:"object"`
	Entry  []struct {
		Changes []struct {
			Field string `json:"field"`
			Value struct {
				Statuses []struct {
					ID          string `json:"id"`
					Status      string `json:"status"`
					Timestamp   string `json:"timestamp"`
					RecipientID string `json:"recipient_id"`
					Errors      []struct {
						Code int `json:"code"`
					} `json:"errors"`
				} `json:"statuses"`
			} `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

// ParseWebhook reads one notification, which may batch several entries
// and statuses: "delivered" and "failed" statuses give one event each
// (Reason: the first error code of a failure); "sent" and "read", inbound
// messages and other fields give none.
func ParseWebhook(body []byte) ([]delivery.Event, error) {
	var p webhookPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, &delivery.WebhookError{Provider: Provider, Reason: delivery.Malformed, Detail: "body is not a notification"}
	}
	if p.Object != "whatsapp_business_account" {
		return nil, nil
	}
	var events []delivery.Event
	for _, entry := range p.Entry {
		for _, change := range entry.Changes {
			if change.Field != "messages" {
				continue
			}
			for _, st := range change.Value.Statuses {
				ev := delivery.Event{Provider: Provider, MessageID: st.ID, Recipient: st.RecipientID}
				switch st.Status {
				case "delivered":
					ev.Kind = delivery.Delivered
				case "failed":
					ev.Kind = delivery.Failed
					if len(st.Errors) > 0 {
						ev.Reason = strconv.Itoa(st.Errors[0].Code)
					}
				default:
					continue
				}
				secs, err := strconv.ParseInt(st.Timestamp, 10, 64)
				if err != nil || ev.MessageID == "" || ev.Recipient == "" {
					return nil, &delivery.WebhookError{Provider: Provider, Reason: delivery.Malformed, Detail: "status lacks id, recipient or time"}
				}
				ev.OccurredAt = time.Unix(secs, 0).UTC()
				events = append(events, ev)
			}
		}
	}
	return events, nil
}
