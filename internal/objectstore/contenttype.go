package objectstore

import (
	"mime"
	"strings"
)

// DefaultContentType is what an object without a declared type is stored as.
const DefaultContentType = "application/octet-stream"

const maxContentTypeBytes = 255

// NormalizeContentType returns the canonical form of a media type (lower-case
// type and parameter names, parameters formatted once), so that the type
// bound into a signature and the one a client sends compare equal. Empty is
// DefaultContentType; a malformed type or a wildcard is unsupported_type.
func NormalizeContentType(ct string) (string, error) {
	if strings.TrimSpace(ct) == "" {
		return DefaultContentType, nil
	}
	if len(ct) > maxContentTypeBytes {
		return "", newError(KindUnsupportedType, "", "", "content type longer than 255 bytes", nil)
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", newError(KindUnsupportedType, "", "", "malformed content type", nil)
	}
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || typ == "" || sub == "" || strings.Contains(mt, "*") {
		return "", newError(KindUnsupportedType, "", "", "content type is not type/subtype", nil)
	}
	out := mime.FormatMediaType(mt, params)
	if out == "" {
		return "", newError(KindUnsupportedType, "", "", "malformed content type", nil)
	}
	return out, nil
}

// isActiveContent tells types that a browser would render as a document able
// to run script or load resources in the platform's origin (html, svg, xml
// and its family, script). They are served as attachments, never inline: a
// tenant's upload must not become a page of ours.
func isActiveContent(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return true // unparseable: assume the worst
	}
	switch mt {
	case "text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml",
		"text/xsl", "application/xslt+xml", "text/javascript", "application/javascript",
		"application/ecmascript", "text/ecmascript", "application/x-shockwave-flash",
		"multipart/x-mixed-replace":
		return true
	}
	return strings.HasSuffix(mt, "+xml")
}

// attachmentDisposition is Content-Disposition for a download saved under
// filename ("attachment" alone without one). mime.FormatMediaType encodes a
// non-ASCII name per RFC 2231.
func attachmentDisposition(filename string) (string, error) {
	if filename == "" {
		return "attachment", nil
	}
	if len(filename) > 255 || strings.ContainsAny(filename, "/\\") {
		return "", newError(KindInvalidArgument, "", "", "download file name has a slash or is longer than 255 bytes", nil)
	}
	for _, r := range filename {
		if r < 0x20 || r == 0x7f {
			return "", newError(KindInvalidArgument, "", "", "download file name holds a control character", nil)
		}
	}
	d := mime.FormatMediaType("attachment", map[string]string{"filename": filename})
	if d == "" {
		return "", newError(KindInvalidArgument, "", "", "download file name cannot be encoded", nil)
	}
	return d, nil
}

// Metadata limits: S3 carries user metadata in headers (2 KiB in all), so
// names are lower-case tokens and values printable ASCII on every backend.
const (
	maxMetadataBytes   = 2048
	maxMetadataNameLen = 64
)

func validateMetadata(md map[string]string) error {
	total := 0
	for k, v := range md {
		total += len(k) + len(v)
		if k == "" || len(k) > maxMetadataNameLen {
			return newError(KindInvalidArgument, "", "", "metadata name empty or longer than 64 bytes", nil)
		}
		for i := 0; i < len(k); i++ {
			c := k[i]
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && (c != '-' || i == 0) {
				return newError(KindInvalidArgument, "", "", "metadata names are lower-case letters, digits and inner dashes", nil)
			}
		}
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				return newError(KindInvalidArgument, "", "", "metadata values are printable ASCII", nil)
			}
		}
	}
	if total > maxMetadataBytes {
		return newError(KindInvalidArgument, "", "", "metadata larger than 2 KiB", nil)
	}
	return nil
}
