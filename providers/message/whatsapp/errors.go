package whatsapp

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/outcome"
)

// classify reads a failed answer: the Graph error code when the body has
// one, the HTTP status otherwise. A 5xx stays a provider fault whatever the
// code says. The error's message is never kept.
func classify(ans *delivery.Answer, now time.Time) *delivery.Error {
	e := ans.Fail(Provider, now)
	var body errorResponse
	if json.Unmarshal(ans.Body, &body) != nil || body.Error.Code == 0 {
		return e
	}
	if e.RequestID == "" {
		e.RequestID = body.Error.FBTraceID
	}
	e.Code = strconv.Itoa(body.Error.Code)
	if ans.Status >= 500 {
		return e
	}
	if kind, reason, ok := errorCode(body.Error.Code, body.Error.ErrorSubcode); ok {
		e.Kind, e.Reason = kind, reason
	}
	return e
}

// errorCode maps the Graph and WhatsApp error codes that decide a kind;
// others keep the status's (a 400 with an unlisted code is Rejected).
func errorCode(code, subcode int) (outcome.Kind, string, bool) {
	switch {
	case code == 100 && subcode == 33:
		// The sending number does not exist for this token, or the token
		// may not use it: the connection is wrong, not the message.
		return outcome.Unauthorized, "sender number not available to this token", true
	case code == 190:
		return outcome.Unauthorized, "access token expired or invalid", true
	case code == 10 || code == 3 || (code >= 200 && code <= 299) || code == 131005:
		return outcome.Unauthorized, "permission missing", true
	case code == 131031 || code == 368:
		return outcome.Unauthorized, "business account restricted", true
	case code == 133010:
		return outcome.Unauthorized, "sender number not registered", true
	case code == 4 || code == 17 || code == 32 || code == 613 || code == 80007 || code == 130429:
		return outcome.RateLimited, "rate limited", true
	case code == 131048:
		return outcome.RateLimited, "spam rate limit", true
	case code == 131056:
		return outcome.RateLimited, "too many messages to this recipient", true
	case code == 131030:
		return outcome.Rejected, "recipient not allowed", true
	case code == 131026:
		return outcome.Rejected, "recipient cannot receive", true
	case code == 131047:
		return outcome.Rejected, "outside the customer service window", true
	case code == 131021:
		return outcome.Rejected, "recipient is the sender", true
	case code == 132001:
		return outcome.Rejected, "template does not exist", true
	case code == 132015 || code == 132016:
		return outcome.Rejected, "template paused or disabled", true
	case code >= 132000 && code <= 132999:
		return outcome.Rejected, "template not accepted", true
	case code == 100 || code == 131008 || code == 131009 || code == 131051:
		return outcome.Rejected, "message parameters refused", true
	case code == 1 || code == 2 || code == 131000 || code == 131016 || code == 133004:
		return outcome.ProviderFault, "provider error", true
	}
	return "", "", false
}
