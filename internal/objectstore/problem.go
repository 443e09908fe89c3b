package objectstore

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
)

// problem is the platform's RFC 9457 body (the same members as the HTTP
// kernel's, http/problem.go), written here so that this package stays free
// of the kernel and usable under any router.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail,omitempty"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
}

const headerRequestID = "X-Request-Id"

var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func writeProblem(w http.ResponseWriter, r *http.Request, status int, code, detail string) {
	h := w.Header()
	h.Del("Content-Disposition")
	h.Del("ETag")
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(problem{
		Type: "https://platform.local/problems/" + code, Title: http.StatusText(status), Status: status,
		Detail: detail, Code: code, RequestID: requestID(w, r),
	})
}

// requestID is the one the kernel's middleware set, when the handler runs
// behind it; else the client's if it is safe to echo; else a new one.
func requestID(w http.ResponseWriter, r *http.Request) string {
	if id := w.Header().Get(headerRequestID); id != "" {
		return id
	}
	id := r.Header.Get(headerRequestID)
	if !safeRequestID.MatchString(id) {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b)
	}
	w.Header().Set(headerRequestID, id)
	return id
}
