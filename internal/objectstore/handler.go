package objectstore

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Handler serves the local backend's signed URLs: PUT uploads and GET/HEAD
// downloads under the path of OBJECTSTORE_PUBLIC_URL (HandlerPath). Mount it
// there without stripping the prefix. It needs no authentication of its own:
// the signature is the authorization, and it carries no identity.
func (l *Local) Handler(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	return &handler{store: l, log: log}
}

// HandlerPath is the path Handler serves under ("" when no public URL is
// configured; the handler then refuses everything).
func (l *Local) HandlerPath() string {
	if l.public == nil {
		return ""
	}
	return l.public.Path
}

type handler struct {
	store *Local
	log   *slog.Logger
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if h.store.public == nil {
		writeProblem(w, r, http.StatusNotFound, "not_found", "signed URLs are not configured")
		return
	}
	key, ok := strings.CutPrefix(r.URL.Path, h.store.public.Path+"/")
	if !ok {
		writeProblem(w, r, http.StatusNotFound, "not_found", "no object here")
		return
	}
	if err := ValidateKey(key); err != nil {
		writeProblem(w, r, http.StatusBadRequest, "invalid_key", "the object key is refused")
		return
	}
	switch r.Method {
	case http.MethodPut:
		h.upload(w, r, key)
	case http.MethodGet, http.MethodHead:
		h.download(w, r, key)
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT")
		writeProblem(w, r, http.StatusMethodNotAllowed, "method_not_allowed", "signed URLs take GET, HEAD or PUT")
	}
}

// upload stores the body if the URL allows it. Every refusal comes before
// the body is read, except a chunked body that turns out too large: the
// store stops at the limit and discards what it had.
func (h *handler) upload(w http.ResponseWriter, r *http.Request, key string) {
	g, ok := h.authorize(w, r, http.MethodPut, key)
	if !ok {
		return
	}
	ct := r.Header.Get("Content-Type")
	if got, err := NormalizeContentType(ct); ct == "" || err != nil || got != g.ContentType {
		writeProblem(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"this upload URL takes Content-Type "+g.ContentType)
		return
	}
	if r.ContentLength > g.MaxBytes {
		writeProblem(w, r, http.StatusRequestEntityTooLarge, "payload_too_large",
			"this upload URL takes at most "+strconv.FormatInt(g.MaxBytes, 10)+" bytes")
		return
	}
	size := max(r.ContentLength, 0) // -1: chunked, length unknown
	info, err := h.store.Put(r.Context(), key, r.Body, PutOptions{ContentType: g.ContentType, MaxBytes: g.MaxBytes, Size: size})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("ETag", strconv.Quote(info.ETag))
	w.WriteHeader(http.StatusOK)
}

// download serves the object with its stored type. The answer can never
// become a page of the platform's origin: nosniff keeps browsers from
// guessing a type, active content is an attachment, and a sandbox CSP
// disarms whatever is opened anyway.
func (h *handler) download(w http.ResponseWriter, r *http.Request, key string) {
	g, ok := h.authorize(w, r, http.MethodGet, key)
	if !ok {
		return
	}
	obj, err := h.store.open(r.Context(), key)
	if err != nil {
		h.fail(w, r, withOp("get", key, err))
		return
	}
	defer obj.Body.Close()
	body, ok := obj.Body.(io.ReadSeeker)
	if !ok {
		h.fail(w, r, errors.New("objectstore: local object is not seekable"))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", obj.ContentType)
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	switch {
	case g.Disposition != "":
		hd.Set("Content-Disposition", g.Disposition)
	case isActiveContent(obj.ContentType):
		hd.Set("Content-Disposition", "attachment")
	}
	hd.Set("ETag", strconv.Quote(obj.ETag))
	remaining := max(time.Unix(g.Expires, 0).Sub(h.store.now())/time.Second, 0)
	hd.Set("Cache-Control", "private, max-age="+strconv.FormatInt(int64(remaining), 10))
	// ServeContent answers Range and conditional requests; it leaves the
	// Content-Type set above alone (no sniffing, no guess by extension).
	http.ServeContent(w, r, "", obj.Modified, body)
}

// authorize rebuilds the grant from the URL and checks its signature, then
// its expiry. The signature comes first: an expiry moved by hand is a
// tampered URL, not an expired one.
func (h *handler) authorize(w http.ResponseWriter, r *http.Request, method, key string) (grant, bool) {
	q := r.URL.Query()
	g := grant{Method: method, Key: key}
	var err error
	if g.Expires, err = strconv.ParseInt(q.Get(paramExpires), 10, 64); err != nil {
		writeProblem(w, r, http.StatusForbidden, "signature_invalid", "the URL is not a valid signed URL")
		return g, false
	}
	if method == http.MethodPut {
		if g.MaxBytes, err = strconv.ParseInt(q.Get(paramMaxBytes), 10, 64); err != nil || g.MaxBytes <= 0 {
			writeProblem(w, r, http.StatusForbidden, "signature_invalid", "the URL is not a valid signed URL")
			return g, false
		}
		g.ContentType = q.Get(paramContentType)
	} else {
		g.Disposition = q.Get(paramDisposition)
	}
	if !h.store.signer.verify(q.Get(paramKeyID), q.Get(paramSignature), g) {
		writeProblem(w, r, http.StatusForbidden, "signature_invalid", "the URL's signature does not match")
		return g, false
	}
	if !h.store.now().Before(time.Unix(g.Expires, 0)) {
		writeProblem(w, r, http.StatusForbidden, "signature_expired", "the URL has expired")
		return g, false
	}
	return g, true
}

// fail maps an error to a problem; only unexpected ones are logged as such.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch KindOf(err) {
	case KindNotFound:
		writeProblem(w, r, http.StatusNotFound, "not_found", "no object under this key")
	case KindTooLarge:
		writeProblem(w, r, http.StatusRequestEntityTooLarge, "payload_too_large", "the body exceeds this URL's limit; nothing was stored")
	case KindInvalidKey:
		writeProblem(w, r, http.StatusBadRequest, "invalid_key", "the object key is refused")
	case KindUnsupportedType:
		writeProblem(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type", "the content type is refused")
	case KindInvalidArgument:
		writeProblem(w, r, http.StatusBadRequest, "invalid_input", "the request body was incomplete or unreadable; nothing was stored")
	case KindUnavailable:
		h.log.Warn("object store unavailable", "err", err, "path", r.URL.Path)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, r, http.StatusServiceUnavailable, "dependency_unavailable", "the object store is unavailable")
	default:
		h.log.Error("object store handler failed", "err", err, "path", r.URL.Path)
		writeProblem(w, r, http.StatusInternalServerError, "internal_error", "an unexpected error occurred")
	}
}
