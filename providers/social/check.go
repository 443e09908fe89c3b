package social

import (
	"slices"
	"unicode/utf8"

	"github.com/platform/backend/providers/outcome"
)

// CheckPost refuses, before any call, what the network cannot take. Every
// adapter calls it first, so a refusal here is outcome.Rejected with Sent false.
func CheckPost(network string, caps Capabilities, conn Connection, p Post) error {
	const op = "publish"
	switch {
	case conn.BearerToken() == "":
		return &Error{Network: network, Op: op, Kind: outcome.Unauthorized, Reason: ReasonTokenMissing}
	case conn.Account.ID == "":
		return Rejection(network, op, ReasonAccountMissing)
	case p.ReplyTo != "" && !caps.Threads:
		return Rejection(network, op, ReasonThreadUnsupported)
	case caps.TextRequired && p.Text == "":
		return Rejection(network, op, ReasonTextRequired)
	case caps.MaxTextRunes > 0 && utf8.RuneCountInString(p.Text) > caps.MaxTextRunes:
		return Rejection(network, op, ReasonTooLong)
	case caps.MediaRequired && len(p.Media) == 0:
		return Rejection(network, op, ReasonMediaRequired)
	case len(p.Media) > caps.MaxMedia:
		if caps.MaxMedia == 0 {
			return Rejection(network, op, ReasonMediaUnsupported)
		}
		return Rejection(network, op, ReasonTooManyMedia)
	case p.Visibility != "" && !slices.Contains(caps.Visibilities, p.Visibility):
		return Rejection(network, op, ReasonVisibility)
	case p.Text == "" && len(p.Media) == 0:
		return Rejection(network, op, ReasonTextRequired)
	}
	for _, m := range p.Media {
		switch {
		case !slices.Contains(caps.MediaKinds, m.Kind):
			return Rejection(network, op, ReasonMediaUnsupported)
		case caps.MediaByURL && m.URL == "":
			return Rejection(network, op, ReasonMediaInvalid)
		case !caps.MediaByURL && m.Open == nil:
			return Rejection(network, op, ReasonMediaInvalid)
		}
	}
	return nil
}

// VisibilityOr is v, or the network's default when v is empty.
func VisibilityOr(caps Capabilities, v Visibility) Visibility {
	if v == "" && len(caps.Visibilities) > 0 {
		return caps.Visibilities[0]
	}
	return v
}
