package contacts

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"

	contactscmd "github.com/platform/backend/commands/contacts"
	"github.com/platform/backend/domain/errs"
	httpapi "github.com/platform/backend/http"
	contactsview "github.com/platform/backend/projections/contacts"
)

// The routes whose body or answer is a file: they decode (a multipart
// part, the query), call one command or query, and encode (a stream).

func (d Deps) importContacts(ctx context.Context, c *httpapi.Call, in contactscmd.ImportContacts) (httpapi.Reply, error) {
	in.Format = contactscmd.FormatCSV
	if c.MediaType != "text/csv" {
		in.Format = contactscmd.FormatVCard
	}
	report, pos, err := d.Commands.ImportContacts(ctx, c.Meta, in, c.Body)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Reply{Body: report, Position: pos}, nil
}

// Export is contacts.export's query.
type Export struct {
	Q       string `json:"q"`
	StageID string `json:"stageId"`
}

func (d Deps) export(ctx context.Context, c *httpapi.Call, in Export) (httpapi.Reply, error) {
	org := c.Principal.OrganizationID
	return httpapi.Reply{ContentType: "text/csv; charset=utf-8",
		Header: map[string][]string{"Content-Disposition": {`attachment; filename="contacts.csv"`}, "Cache-Control": {"no-store"}},
		Content: func(w io.Writer) error {
			return d.Queries.Export(ctx, org, contactsview.Filter{Query: in.Q, StageID: in.StageID}, w)
		}}, nil
}

func (d Deps) exportVCard(ctx context.Context, c *httpapi.Call, in Export) (httpapi.Reply, error) {
	org := c.Principal.OrganizationID
	return httpapi.Reply{ContentType: "text/vcard; charset=utf-8",
		Header: map[string][]string{"Content-Disposition": {`attachment; filename="contacts.vcf"`}, "Cache-Control": {"no-store"}},
		Content: func(w io.Writer) error {
			return d.Queries.ExportVCard(ctx, org, contactsview.Filter{Query: in.Q, StageID: in.StageID}, w)
		}}, nil
}

func (d Deps) download(ctx context.Context, c *httpapi.Call, in ByID) (httpapi.Reply, error) {
	a, err := d.Queries.Attachment(ctx, c.Principal.OrganizationID, in.ID)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if d.Objects == nil {
		return httpapi.Reply{}, errs.Unavailable("contacts: no object store for attachments", nil)
	}
	obj, err := d.Objects.Get(ctx, a.ObjectKey)
	if err != nil {
		return httpapi.Reply{}, contactscmd.ObjectError(err)
	}
	disposition := mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename})
	if disposition == "" {
		disposition = "attachment"
	}
	// Stored files are the tenant's content: never rendered as a page of
	// ours (attachment, sandboxed, not sniffed).
	return httpapi.Reply{ContentType: a.ContentType, Header: map[string][]string{"Content-Disposition": {disposition},
		"Content-Security-Policy": {"sandbox; default-src 'none'"}, "Cache-Control": {"private, no-store"}},
		Content: func(w io.Writer) error {
			defer obj.Body.Close()
			_, err := io.Copy(w, obj.Body)
			return err
		}}, nil
}

// upload reads the multipart body's one part, "file" (streamed: never
// parsed whole, never spooled), and hands it to the command. Any other
// part is refused: the upload takes a file and nothing else.
func (d Deps) upload(ctx context.Context, c *httpapi.Call, in ByID) (httpapi.Reply, error) {
	_, params, err := mime.ParseMediaType(c.Request.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return httpapi.Reply{}, errs.InvalidField("/body", "a multipart/form-data body needs its boundary")
	}
	parts := multipart.NewReader(c.Body, params["boundary"])
	for {
		part, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return httpapi.Reply{}, errs.InvalidField("/file", "the body has no part named file")
		}
		if err != nil {
			return httpapi.Reply{}, malformedPart(err)
		}
		if part.FormName() != "file" {
			return httpapi.Reply{}, errs.InvalidField("/body", "the body takes one part, named file")
		}
		res, err := d.Commands.AddAttachment(ctx, c.Meta, contactscmd.AddAttachment{ID: in.ID, Filename: part.FileName(),
			ContentType: part.Header.Get("Content-Type")}, &partReader{part})
		return httpapi.FromResult(res, err)
	}
}

// partReader keeps the body's own errors (413, 408) and makes any other a
// malformed upload (400), never a server fault.
type partReader struct{ r io.Reader }

func (p *partReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		err = malformedPart(err)
	}
	return n, err
}

func malformedPart(err error) error {
	if _, typed := errs.As(err); typed || errors.Is(err, context.Canceled) || httpapi.IsKernelProblem(err) {
		return err
	}
	e := errs.InvalidField("/body", "the multipart/form-data body is malformed")
	e.Err = err
	return e
}
