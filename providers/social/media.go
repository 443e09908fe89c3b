package social

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"

	"github.com/platform/backend/providers/outcome"
)

// ReadMedia reads an upload's bytes, bounded by the media's Size or the
// caller's upload limit. Media we cannot open is our side's fault (the
// object store), not the network's; media past the bound is refused.
func (c *Caller) ReadMedia(ctx context.Context, m Media) ([]byte, error) {
	limit := c.cfg.MaxUploadBytes
	if m.Size > 0 && m.Size < limit {
		limit = m.Size
	}
	if m.Open == nil {
		return nil, Rejection(c.network, "upload_media", ReasonMediaInvalid)
	}
	r, err := m.Open(ctx)
	if err != nil {
		return nil, &Error{Network: c.network, Op: "upload_media", Kind: outcome.ProviderFault, Reason: "media_unreadable", cause: err}
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		return nil, &Error{Network: c.network, Op: "upload_media", Kind: outcome.ProviderFault, Reason: "media_unreadable", cause: err}
	case int64(len(b)) > limit:
		return nil, Rejection(c.network, "upload_media", ReasonMediaInvalid)
	case len(b) == 0:
		return nil, Rejection(c.network, "upload_media", ReasonMediaInvalid)
	}
	return b, nil
}

// Field is one multipart form field.
type Field struct{ Name, Value string }

// Multipart builds a multipart/form-data body: the fields in order, then
// one file part. It answers the body and its content type.
func Multipart(fields []Field, fileField, fileName, contentType string, data []byte) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f.Name, f.Value); err != nil {
			return nil, "", err
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, fileField, fileName))
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	h.Set("Content-Type", contentType)
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(data); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// FileName is a name for an upload part from its content type.
func FileName(contentType string) string {
	_, sub, ok := strings.Cut(contentType, "/")
	if !ok || sub == "" {
		return "media"
	}
	return "media." + sub
}
