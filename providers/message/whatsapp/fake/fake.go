// Package fake is a local WhatsApp Cloud API: POST
// /{version}/{phone_number_id}/messages with a Bearer token, the Graph
// API's answers and error bodies, scripted faults, every request recorded,
// deterministic wamid ids and trace ids, and signed status webhooks (and
// the subscription handshake) sent to a URL of the test's choosing.
//
//	srv := fake.Start(fake.Options{AccessToken: "tok", PhoneNumberIDs: []string{"106540352242922"}})
//	defer srv.Close()
//	srv.Next(1, fakekit.Fault{Kind: fakekit.Reject, Code: "132001"})
//	client, _ := whatsapp.New(whatsapp.Config{BaseURL: srv.URL(), AccessToken: "tok", PhoneNumberID: "106540352242922"})
package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/message/whatsapp"
)

// DefaultPhoneNumberID is the sending number webhooks name when Options
// lists none.
const DefaultPhoneNumberID = "106540352242922"

// Options configure the fake.
type Options struct {
	AccessToken string // the token calls must carry
	// PhoneNumberIDs are the sending numbers that exist; empty accepts any.
	PhoneNumberIDs []string
	AppSecret      string // signs SendWebhook's notifications
}

// Server is the fake. Script faults with Next, Then, When (a rule's
// subject is the recipient), Always; read calls with Requests.
type Server struct {
	*fakekit.Kit
	opts Options
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(opts Options) *Server {
	s := &Server{opts: opts, Kit: fakekit.New(fakekit.Options{Protocol: protocol{}})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{version}/{phone}/messages", s.send)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		graphError(w, http.StatusBadRequest, 100, 33, "Unsupported request - method type: "+strings.ToLower(r.Method))
	})
	s.Serve(mux)
	return s
}

// MessageID is the wamid the fake gives the n-th accepted message (1-based).
func MessageID(n int) string { return fmt.Sprintf("wamid.FAKE%020d", n) }

// TraceID is the x-fb-trace-id of the fake's n-th call (1-based).
func TraceID(n int) string { return fmt.Sprintf("FakeTrace%06d", n) }

var versionPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

type request struct {
	MessagingProduct string `json:"messaging_product"`
	To               string `json:"to"`
	Type             string `json:"type"`
	Text             *struct {
		Body string `json:"body"`
	} `json:"text"`
	Template *struct {
		Name     string `json:"name"`
		Language struct {
			Code string `json:"code"`
		} `json:"language"`
	} `json:"template"`
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	n := s.Calls() // this call is already recorded
	w.Header().Set("X-Fb-Trace-Id", TraceID(n))
	w.Header().Set("X-Fb-Request-Id", fmt.Sprintf("FakeRequest%06d", n))
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" || !delivery.SecretEqual(token, s.opts.AccessToken) {
		graphError(w, http.StatusUnauthorized, 190, 0, "Invalid OAuth access token - Cannot parse access token")
		return
	}
	phone := r.PathValue("phone")
	if !versionPattern.MatchString(r.PathValue("version")) {
		graphError(w, http.StatusBadRequest, 2500, 0, "Unknown path components: /"+r.PathValue("version"))
		return
	}
	if len(s.opts.PhoneNumberIDs) > 0 && !slices.Contains(s.opts.PhoneNumberIDs, phone) {
		graphError(w, http.StatusBadRequest, 100, 33, "Unsupported post request. Object with ID '"+phone+"' does not exist, cannot be loaded due to missing permissions, or does not support this operation.")
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req request
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case mt != "application/json" || json.Unmarshal(body, &req) != nil:
		graphError(w, http.StatusBadRequest, 100, 0, "(#100) Invalid parameter")
		return
	case req.MessagingProduct != "whatsapp":
		graphError(w, http.StatusBadRequest, 100, 0, "(#100) The parameter messaging_product is required.")
		return
	case req.To == "":
		graphError(w, http.StatusBadRequest, 100, 0, "(#100) The parameter to is required.")
		return
	case req.Type == "text" && (req.Text == nil || req.Text.Body == ""):
		graphError(w, http.StatusBadRequest, 100, 0, "(#100) The parameter text['body'] is required.")
		return
	case req.Type == "template" && (req.Template == nil || req.Template.Name == "" || req.Template.Language.Code == ""):
		graphError(w, http.StatusBadRequest, 100, 0, "(#100) Param template['name'] and template['language'] are required.")
		return
	case req.Type != "text" && req.Type != "template":
		graphError(w, http.StatusBadRequest, 131051, 0, "(#131051) Unsupported message type")
		return
	}
	call, ok := s.Begin(w, r, "", req.To)
	if !ok {
		return
	}
	call.JSON(map[string]any{"messaging_product": "whatsapp",
		"contacts": []map[string]string{{"input": req.To, "wa_id": strings.TrimPrefix(req.To, "+")}},
		"messages": []map[string]string{{"id": MessageID(s.Seq("message")), "message_status": "accepted"}}})
}

// protocol says faults as the Cloud API does.
type protocol struct{}

func (protocol) Say(w http.ResponseWriter, _ *http.Request, _ string, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.Reject:
		code := 131030
		if n, err := strconv.Atoi(f.Code); err == nil {
			code = n
		}
		graphError(w, http.StatusBadRequest, code, 2494010, rejectMessage(code))
	case fakekit.Unauthorized:
		graphError(w, http.StatusUnauthorized, 190, 463, "Error validating access token: Session has expired on Friday, 13-Mar-26 10:00:00 PDT.")
	case fakekit.ServerError:
		graphError(w, f.StatusOr(http.StatusInternalServerError), 131000, 0, "(#131000) Something went wrong")
	case fakekit.RateLimit:
		code := 130429
		if n, err := strconv.Atoi(f.Code); err == nil {
			code = n
		}
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfterSeconds()))
		graphError(w, http.StatusTooManyRequests, code, 0, "(#"+strconv.Itoa(code)+") Rate limit hit")
	case fakekit.Malformed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"messaging_product":"whatsapp","contacts":[{"input":`)
	default:
		return false
	}
	return true
}

func rejectMessage(code int) string {
	switch code {
	case 131030:
		return "(#131030) Recipient phone number not in allowed list"
	case 131026:
		return "(#131026) Message undeliverable"
	case 131047:
		return "(#131047) Re-engagement message"
	case 132001:
		return "(#132001) Template name does not exist in the translation"
	}
	return "(#" + strconv.Itoa(code) + ") The message was refused"
}

func graphError(w http.ResponseWriter, status, code, subcode int, msg string) {
	e := map[string]any{"message": msg, "type": "OAuthException", "code": code, "fbtrace_id": "AbCdEfFakeTrace"}
	if subcode != 0 {
		e["error_subcode"] = subcode
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// WebhookBody is the notification Meta posts for ev: a "delivered" or
// (for any other kind) "failed" status with error code ev.Reason (default
// 131026).
func (s *Server) WebhookBody(ev delivery.Event) []byte {
	phone := DefaultPhoneNumberID
	if len(s.opts.PhoneNumberIDs) > 0 {
		phone = s.opts.PhoneNumberIDs[0]
	}
	status := map[string]any{"id": ev.MessageID, "status": "delivered", "timestamp": strconv.FormatInt(ev.OccurredAt.Unix(), 10),
		"recipient_id": ev.Recipient,
		"conversation": map[string]any{"id": "CONVERSATION_ID", "origin": map[string]string{"type": "utility"}},
		"pricing":      map[string]any{"billable": true, "pricing_model": "CBP", "category": "utility"}}
	if ev.Kind != delivery.Delivered {
		code := 131026
		if n, err := strconv.Atoi(ev.Reason); err == nil {
			code = n
		}
		status["status"] = "failed"
		delete(status, "conversation")
		delete(status, "pricing")
		status["errors"] = []map[string]any{{"code": code, "title": "Message undeliverable", "message": "Message undeliverable",
			"error_data": map[string]string{"details": "Message Undeliverable."}}}
	}
	b, _ := json.Marshal(map[string]any{"object": "whatsapp_business_account", "entry": []any{map[string]any{
		"id": "102290129340398", "changes": []any{map[string]any{"field": "messages", "value": map[string]any{
			"messaging_product": "whatsapp",
			"metadata":          map[string]string{"display_phone_number": "15550783881", "phone_number_id": phone},
			"statuses":          []any{status},
		}}},
	}}})
	return b
}

// SendWebhook posts ev to url as Meta would, signed with the app secret,
// and returns the receiver's status.
func (s *Server) SendWebhook(ctx context.Context, url string, ev delivery.Event) (int, error) {
	body := s.WebhookBody(ev)
	h := http.Header{}
	h.Set(whatsapp.SignatureHeader, whatsapp.Webhook{AppSecret: s.opts.AppSecret}.Sign(body))
	return fakekit.PostWebhook(ctx, url, h, body)
}

// Subscribe makes Meta's GET handshake against callbackURL with the verify
// token, and reports whether the receiver echoed the challenge.
func Subscribe(ctx context.Context, callbackURL, verifyToken string) (bool, error) {
	const challenge = "1158201444"
	u, err := url.Parse(callbackURL)
	if err != nil {
		return false, err
	}
	q := u.Query()
	q.Set("hub.mode", "subscribe")
	q.Set("hub.verify_token", verifyToken)
	q.Set("hub.challenge", challenge)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, err
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return resp.StatusCode == http.StatusOK && string(body) == challenge, nil
}
