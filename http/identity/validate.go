package identity

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
)

// ValidatePart is the identity service's /validate (any method): 200 with
// the principal, 401 for a bad credential, 503 when the store is down.
func ValidatePart(v httpapi.Validator, d httpapi.Deps) Part {
	answers := &encodedAnswers{}
	validate := func(w http.ResponseWriter, req *http.Request) {
		token := httpapi.Credential(req)
		if token == "" {
			httpapi.WriteError(w, req, d.Log, httpapi.ErrAuthRequired)
			return
		}
		p, err := v.Validate(req.Context(), token)
		if err != nil {
			httpapi.WriteError(w, req, d.Log, err)
			return
		}
		body, err := answers.encode(p)
		if err != nil {
			httpapi.WriteError(w, req, d.Log, err)
			return
		}
		// Values shared by every answer, as httpapi's nosniff.
		h := w.Header()
		h["Cache-Control"], h["Content-Type"], h["Content-Length"] = noStore, jsonType, body.length
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body.json)
	}
	// Ahead of the router (httpapi.Service.Exact): every request of every
	// backend calls it.
	return Part{Exact: map[string]http.Handler{"/validate": http.HandlerFunc(validate)}}
}

// encodedAnswers keeps the body last sent for each credential: every
// backend asks /validate on every request, a credential's principal
// changes rarely, and encoding it (a session's is a hundred permission
// strings, about 3 KB) cost as much CPU as validating it. The body is
// reused only for a principal equal member by member to the one it was
// encoded from, so it is exactly what encoding would write (httpapi.WriteJSON:
// the JSON and a newline).
type encodedAnswers struct {
	mu      sync.RWMutex
	entries map[answerKey]encodedAnswer
}

// answerKey is whose answer: a key's or a session's.
type answerKey struct{ kind, id, session string }

type encodedAnswer struct {
	principal principal.Principal
	json      []byte
	length    []string // Content-Length
}

var noStore, jsonType = []string{"no-store"}, []string{"application/json"}

// encodedAnswersMax bounds memory: past it the memo starts over.
const encodedAnswersMax = 100_000

func (m *encodedAnswers) encode(p principal.Principal) (encodedAnswer, error) {
	key := answerKey{p.Type, p.ID, p.SessionID}
	m.mu.RLock()
	a, ok := m.entries[key]
	m.mu.RUnlock()
	if ok && a.principal.Equal(p) {
		return a, nil
	}
	body, err := json.Marshal(p)
	if err != nil {
		return encodedAnswer{}, err
	}
	// A copy of p: a list the caller changed in place later must not look
	// equal.
	a = encodedAnswer{principal: p.Clone(), json: append(body, '\n'), length: []string{strconv.Itoa(len(body) + 1)}}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil || len(m.entries) >= encodedAnswersMax {
		m.entries = make(map[answerKey]encodedAnswer)
	}
	m.entries[key] = a
	return a, nil
}
