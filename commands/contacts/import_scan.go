package contacts

import (
	"errors"
	"io"

	domain "github.com/platform/backend/domain/contacts"
)

// scanned is a file read through once: its mapping, its rows (valid ones
// spooled, or kept for a dry run), its row errors and its hash.
type scanned struct {
	mapping   domain.Mapping
	rows      int
	failed    int
	errors    []domain.RowError
	truncated bool
	hash      string
	valid     []domain.Row // a dry run's
	spool     *spool       // an import's
}

// scan reads the whole file: the header (the mapping), then every record
// as a row or its errors (keep of them listed). A malformed file is an
// error naming its line; the rest of the body is read and dropped first,
// so the client, still sending, gets the answer rather than a reset.
func (h *Handlers) scan(body io.Reader, format string, explicit map[string]string, org string, keep int, toSpool bool) (*scanned, error) {
	s, err := h.readAll(body, format, explicit, org, keep, toSpool)
	if err != nil {
		_ = s.spool.close()
		_, _ = io.Copy(io.Discard, body) // bounded by the route's limit; its own error changes nothing
		return nil, err
	}
	return s, nil
}

func (h *Handlers) readAll(body io.Reader, format string, explicit map[string]string, org string, keep int, toSpool bool) (*scanned, error) {
	s := &scanned{errors: []domain.RowError{}}
	in := h.records(body, format)
	header, _, err := in.next()
	if errors.Is(err, io.EOF) {
		return s, malformed(1, 0, "the file is empty: its first line must be the header")
	}
	if err != nil {
		return s, err
	}
	if s.mapping, err = domain.NewMapping(header, explicit); err != nil {
		return s, err
	}
	if toSpool {
		if s.spool, err = newSpool(h.cfg.SpoolDir); err != nil {
			return s, err
		}
	}
	p := domain.DefaultPipeline(org)
	for {
		record, line, err := in.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s, err
		}
		s.rows++
		row, rowErrs := s.mapping.Row(line, record, p)
		if len(rowErrs) > 0 {
			s.failed++
			for _, e := range rowErrs {
				if len(s.errors) < keep {
					s.errors = append(s.errors, e)
				} else {
					s.truncated = true
				}
			}
			continue
		}
		if s.spool != nil {
			if err := s.spool.add(row); err != nil {
				return s, err
			}
		} else {
			s.valid = append(s.valid, row)
		}
	}
	s.hash = in.hash()
	return s, nil
}
