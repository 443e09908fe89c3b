package contacts

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"unicode/utf8"

	domain "github.com/platform/backend/domain/contacts"
)

// Import formats: the body's media type chooses the reader.
const (
	FormatCSV   = "csv"
	FormatVCard = "vcard"
)

// records is an import file read record by record: the header first, then
// each row with the line it starts on; hash is the SHA-256 of the records
// read (a repeated import tells the same file from another).
type records interface {
	next() ([]string, int, error)
	hash() string
}

func (h *Handlers) records(body io.Reader, format string) records {
	if format == FormatVCard {
		return newVCardStream(body, h.cfg.ImportMaxLineBytes)
	}
	return newCSVStream(body, h.cfg.ImportMaxLineBytes)
}

// vcardStream reads a vCard file (RFC 6350; 4.0, and 3.0 as most address
// books still write) card by card, never whole: its first record is the
// header domain.VCardColumns, then each card as a record (domain.CardReader),
// on the line of its BEGIN:VCARD. Content lines are unfolded, each bounded
// (physical and unfolded) like a CSV line; what makes the file unreadable (a
// line that is no property, a card without its end, invalid UTF-8) is a
// malformed-file error naming its line.
type vcardStream struct {
	in      *bufio.Reader
	lines   *lineBound
	max     int
	line    int    // physical lines read
	pending string // a content line read ahead (the next one's start)
	pendAt  int
	header  bool
	sum     hash.Hash
}

func newVCardStream(body io.Reader, maxLine int) *vcardStream {
	lb := &lineBound{r: body, max: maxLine, line: 1}
	return &vcardStream{in: bufio.NewReaderSize(lb, 64<<10), lines: lb, max: maxLine, sum: sha256.New()}
}

// physical is the next physical line without its line end.
func (s *vcardStream) physical() (string, error) {
	raw, err := s.in.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && raw != "") {
		var tooLong *lineTooLong
		if errors.As(err, &tooLong) {
			return "", malformed(tooLong.line, 0, fmt.Sprintf("the line is longer than %d bytes", s.max))
		}
		return "", err
	}
	s.line++
	if s.line == 1 {
		raw = strings.TrimPrefix(raw, "\uFEFF")
	}
	if !utf8.ValidString(raw) {
		return "", malformed(s.line, 0, "the line is not valid UTF-8 (save the file as UTF-8)")
	}
	return strings.TrimRight(raw, "\r\n"), nil
}

// content is the next unfolded content line and the line it starts on;
// io.EOF at the end.
func (s *vcardStream) content() (string, int, error) {
	line, at := s.pending, s.pendAt
	s.pending = ""
	if line == "" {
		for line == "" {
			l, err := s.physical()
			if err != nil {
				return "", 0, err
			}
			line, at = l, s.line
		}
	}
	for {
		l, err := s.physical()
		if errors.Is(err, io.EOF) {
			return line, at, nil
		}
		if err != nil {
			return "", 0, err
		}
		if l != "" && (l[0] == ' ' || l[0] == '\t') {
			if len(line)+len(l) > s.max {
				return "", 0, malformed(at, 0, fmt.Sprintf("the unfolded line is longer than %d bytes", s.max))
			}
			line += l[1:]
			continue
		}
		s.pending, s.pendAt = l, s.line
		return line, at, nil
	}
}

func (s *vcardStream) next() ([]string, int, error) {
	if !s.header {
		s.header = true
		return s.hashed(domain.VCardColumns), 1, nil
	}
	line, at, err := s.content()
	if err != nil {
		return nil, 0, err
	}
	if !strings.EqualFold(strings.TrimSpace(line), "BEGIN:VCARD") {
		return nil, 0, malformed(at, 0, "expected BEGIN:VCARD")
	}
	var card domain.CardReader
	for {
		l, n, err := s.content()
		if errors.Is(err, io.EOF) {
			return nil, 0, malformed(at, 0, "the card that begins here has no END:VCARD")
		}
		if err != nil {
			return nil, 0, err
		}
		if strings.EqualFold(strings.TrimSpace(l), "END:VCARD") {
			return s.hashed(card.Record()), at, nil
		}
		p, ok := domain.ParseVCardLine(l)
		if !ok {
			return nil, 0, malformed(n, 0, "not a vCard property (name:value)")
		}
		if p.Name == "BEGIN" {
			return nil, 0, malformed(n, 0, "a card inside a card (the one on line "+fmt.Sprint(at)+" has no END:VCARD)")
		}
		card.Add(p)
	}
}

func (s *vcardStream) hashed(record []string) []string {
	var n [8]byte
	for _, f := range record {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		s.sum.Write(n[:])
		s.sum.Write([]byte(f))
	}
	s.sum.Write([]byte{'\n'})
	return record
}

func (s *vcardStream) hash() string { return fmt.Sprintf("%x", s.sum.Sum(nil)) }
