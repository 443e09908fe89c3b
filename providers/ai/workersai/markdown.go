package workersai

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

// markdownResult is one converted file. tokens is a number in the
// documentation's examples and a string in the API schema: both are read.
type markdownResult struct {
	Name     string          `json:"name"`
	MIMEType string          `json:"mimeType"`
	Format   string          `json:"format"` // "markdown" | "error"
	Tokens   json.RawMessage `json:"tokens"`
	Data     string          `json:"data"`
}

// ConvertToMarkdown runs accounts/{id}/ai/tomarkdown with one multipart
// "files" part per file.
func (c *Client) ConvertToMarkdown(ctx context.Context, req ai.MarkdownRequest) (*ai.MarkdownResponse, error) {
	if err := ai.Require(ai.ProtocolWorkersAI, c.conn.Capabilities, ai.CapMarkdown); err != nil {
		return nil, err
	}
	if len(req.Files) == 0 {
		return nil, ai.Invalid(ai.ProtocolWorkersAI, ai.CapMarkdown, "no files")
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range req.Files {
		if f.Name == "" || strings.ContainsAny(f.Name, "\"\r\n\\") || len(f.Data) == 0 {
			return nil, ai.Invalid(ai.ProtocolWorkersAI, ai.CapMarkdown, "file without a usable name or without data")
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="files"; filename="`+f.Name+`"`)
		h.Set("Content-Type", ai.Pick(f.MIMEType, "application/octet-stream"))
		w, _ := mw.CreatePart(h)
		_, _ = w.Write(f.Data)
	}
	_ = mw.Close()
	res, meta, err := do[[]markdownResult](ctx, c, httpcall.Request{Capability: ai.CapMarkdown,
		URL: c.conn.BaseURL + "/accounts/" + c.account + "/ai/tomarkdown", Header: c.header(),
		Body: buf.Bytes(), ContentType: mw.FormDataContentType()})
	if err != nil {
		return nil, err
	}
	if len(res) != len(req.Files) {
		return nil, c.call.Fault(ai.CapMarkdown, meta, "answer lacks a document")
	}
	out := &ai.MarkdownResponse{RequestID: meta.RequestID}
	for _, r := range res {
		doc := ai.MarkdownDocument{Name: r.Name, MIMEType: r.MIMEType, Failed: r.Format != "markdown", Tokens: tokens(r.Tokens)}
		if !doc.Failed {
			doc.Markdown = r.Data
		}
		out.Usage.OutputTokens += doc.Tokens
		out.Documents = append(out.Documents, doc)
	}
	return out, nil
}

func tokens(raw json.RawMessage) int64 {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n
}
