package contacts

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/platform/backend/domain/errs"
)

// csvStream reads an import file record by record, never whole: a record
// at a time through encoding/csv, every physical line bounded, every field
// checked to be UTF-8. What makes the file unreadable (a broken quote,
// invalid UTF-8, an overlong line) is a malformed-file error naming its line
// and column; the body's own errors (413, 408, a client that left) pass
// through. It hashes every record it reads, so a repeated import can tell
// the same file from another.
type csvStream struct {
	r     *csv.Reader
	lines *lineBound
	sum   hash.Hash
	first bool
}

func newCSVStream(body io.Reader, maxLine int) *csvStream {
	lb := &lineBound{r: body, max: maxLine, line: 1}
	r := csv.NewReader(lb)
	r.FieldsPerRecord = -1 // a row of another width is the row's error, not the file's
	r.ReuseRecord = false
	return &csvStream{r: r, lines: lb, sum: sha256.New(), first: true}
}

// next is the next record and the line it starts on; io.EOF at the end.
func (s *csvStream) next() ([]string, int, error) {
	record, err := s.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, io.EOF
		}
		var tooLong *lineTooLong
		if errors.As(err, &tooLong) {
			return nil, 0, malformed(tooLong.line, 0, fmt.Sprintf("the line is longer than %d bytes", s.lines.max))
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, 0, malformed(pe.Line, pe.Column, pe.Err.Error())
		}
		return nil, 0, err
	}
	line, _ := s.r.FieldPos(0)
	if s.first {
		record[0] = strings.TrimPrefix(record[0], "\uFEFF") // a byte-order mark some spreadsheets write
		s.first = false
	}
	for i, f := range record {
		if !utf8.ValidString(f) {
			l, col := s.r.FieldPos(i)
			return nil, 0, malformed(l, col, "the field is not valid UTF-8 (save the file as UTF-8)")
		}
	}
	var n [8]byte
	for _, f := range record {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		s.sum.Write(n[:])
		s.sum.Write([]byte(f))
	}
	s.sum.Write([]byte{'\n'})
	return record, line, nil
}

// hash is the SHA-256 of the records read so far.
func (s *csvStream) hash() string { return fmt.Sprintf("%x", s.sum.Sum(nil)) }

// malformed is a file that cannot be read as CSV: 400 naming the line (and
// column, when known), also as problem members line and column.
func malformed(line, column int, detail string) error {
	where := fmt.Sprintf("line %d", line)
	if column > 0 {
		where += fmt.Sprintf(", column %d", column)
	}
	e := errs.InvalidField("/body", where+": "+detail)
	e.Message = "the file is not readable CSV: " + where + ": " + detail
	e.Extensions = map[string]any{"line": line, "column": column}
	return e
}

// lineBound stops a body at a physical line longer than max bytes: a 10 MB
// line would otherwise be held whole by the CSV reader.
type lineBound struct {
	r    io.Reader
	max  int
	run  int // bytes since the last line feed
	line int // the line those bytes are on
	err  error
}

type lineTooLong struct{ line int }

func (e *lineTooLong) Error() string { return fmt.Sprintf("line %d is too long", e.line) }

func (b *lineBound) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			b.run += n - i
			break
		}
		b.run += j
		if b.run > b.max {
			break
		}
		b.run, b.line, i = 0, b.line+1, i+j+1
	}
	if b.run > b.max {
		b.err = &lineTooLong{line: b.line}
		return 0, b.err
	}
	return n, err
}
