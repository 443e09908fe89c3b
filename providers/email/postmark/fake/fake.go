// Package fake is a local Postmark: POST /email with the server token,
// Postmark's answers and error bodies, scripted faults, every request
// recorded, deterministic MessageIDs, and Basic-authenticated delivery and
// bounce webhooks sent to a URL of the test's choosing.
//
//	srv := fake.Start(fake.Options{ServerToken: "tok"})
//	defer srv.Close()
//	srv.Next(1, fakekit.Fault{Kind: fakekit.Reject, Code: "300"})
//	client, _ := postmark.New(postmark.Config{BaseURL: srv.URL(), ServerToken: "tok"})
package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email/postmark"
	"github.com/platform/backend/providers/fakekit"
)

// Options configure the fake.
type Options struct {
	ServerToken string // the token calls must carry
	// Webhook holds the Basic credentials SendWebhook puts on its calls.
	Webhook postmark.Webhook
}

// Server is the fake. Script faults with Next, Then, When (a rule's
// subjects are the message's recipients), Always; read calls with Requests.
type Server struct {
	*fakekit.Kit
	opts Options
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(opts Options) *Server {
	s := &Server{opts: opts, Kit: fakekit.New(fakekit.Options{Protocol: protocol{}})}
	s.Serve(http.HandlerFunc(s.serve))
	return s
}

// MessageID is the id the fake gives the n-th accepted call (1-based).
func MessageID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// request is what the fake reads of a send: enough to validate it.
type request struct {
	From, To, Cc, Bcc, Subject, HtmlBody, TextBody string
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/email" {
		http.NotFound(w, r)
		return
	}
	if !delivery.SecretEqual(r.Header.Get("X-Postmark-Server-Token"), s.opts.ServerToken) {
		answer(w, http.StatusUnauthorized, 10, "Request does not contain a valid Server token.")
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req request
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case mt != "application/json":
		answer(w, http.StatusUnprocessableEntity, 409, "JSON request required.")
		return
	case json.Unmarshal(body, &req) != nil:
		answer(w, http.StatusUnprocessableEntity, 402, "Invalid JSON.")
		return
	case req.From == "" || req.To == "" || req.Subject == "" || (req.HtmlBody == "" && req.TextBody == ""):
		answer(w, http.StatusUnprocessableEntity, 300, "Invalid email request: From, To, Subject and a body are required.")
		return
	}
	call, ok := s.Begin(w, r, "", recipients(req.To, req.Cc, req.Bcc)...)
	if !ok {
		return
	}
	call.JSON(map[string]any{"To": req.To, "SubmittedAt": s.Now().Format("2006-01-02T15:04:05.0000000Z07:00"),
		"MessageID": MessageID(s.Seq("message")), "ErrorCode": 0, "Message": "OK"})
}

// protocol says faults as Postmark does.
type protocol struct{}

func (protocol) Say(w http.ResponseWriter, _ *http.Request, _ string, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.Reject:
		code := 406
		if n, err := strconv.Atoi(f.Code); err == nil {
			code = n
		}
		answer(w, http.StatusUnprocessableEntity, code, rejectMessage(code))
	case fakekit.Unauthorized:
		answer(w, http.StatusUnauthorized, 10, "Request does not contain a valid Server token.")
	case fakekit.ServerError:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.StatusOr(http.StatusInternalServerError))
		fmt.Fprint(w, "<html><body><h1>500 Internal Server Error</h1></body></html>")
	case fakekit.RateLimit:
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfterSeconds()))
		answer(w, http.StatusTooManyRequests, 429, "Rate limit exceeded.")
	case fakekit.Malformed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"To":"","MessageID":`)
	default:
		return false
	}
	return true
}

func answer(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"ErrorCode": code, "Message": message})
}

func rejectMessage(code int) string {
	switch code {
	case 300:
		return "Invalid 'To' address: 'not-an-address'."
	case 406:
		return "You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: x@example.com."
	case 401:
		return "Sender signature not confirmed."
	}
	return "The request was refused."
}

// recipients lists the addresses in comma-joined lists.
func recipients(lists ...string) []string {
	var out []string
	for _, l := range lists {
		if l == "" {
			continue
		}
		parsed, err := mail.ParseAddressList(l)
		if err != nil {
			out = append(out, strings.Split(l, ",")...)
			continue
		}
		for _, a := range parsed {
			out = append(out, a.Address)
		}
	}
	return out
}

// WebhookBody is the record Postmark posts for ev (a Delivery for
// Delivered, a Bounce of type ev.Reason, default HardBounce, otherwise).
func WebhookBody(ev delivery.Event) []byte {
	at := ev.OccurredAt.UTC().Format(time.RFC3339Nano)
	var rec map[string]any
	if ev.Kind == delivery.Delivered {
		rec = map[string]any{"RecordType": "Delivery", "ServerID": 23, "MessageStream": "outbound", "MessageID": ev.MessageID,
			"Recipient": ev.Recipient, "Tag": "", "DeliveredAt": at, "Details": "smtp;250 2.0.0 OK", "Metadata": map[string]string{}}
	} else {
		typ := ev.Reason
		if typ == "" {
			typ = "HardBounce"
		}
		rec = map[string]any{"RecordType": "Bounce", "ID": 4323372036854775807, "Type": typ, "TypeCode": 1, "Name": "Hard bounce",
			"Tag": "", "MessageID": ev.MessageID, "ServerID": 23, "MessageStream": "outbound",
			"Description": "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
			"Details":     "smtp;550 5.1.1 The email account that you tried to reach does not exist.", "Email": ev.Recipient,
			"From": "sender@example.com", "BouncedAt": at, "DumpAvailable": false, "Inactive": true, "CanActivate": true,
			"Subject": "Test subject", "Metadata": map[string]string{}}
	}
	b, _ := json.Marshal(rec)
	return b
}

// SendWebhook posts ev to url as Postmark would, with the configured Basic
// credentials, and returns the receiver's status.
func (s *Server) SendWebhook(ctx context.Context, url string, ev delivery.Event) (int, error) {
	h := http.Header{}
	s.opts.Webhook.Sign(h)
	return fakekit.PostWebhook(ctx, url, h, WebhookBody(ev))
}
