package contacts

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"

	domain "github.com/platform/backend/domain/contacts"
)

// spool holds an import's valid rows on disk between reading the file and
// committing them: the file is read whole first, so a malformed line
// anywhere refuses the import before anything is committed, and no row is
// ever held in memory beyond one batch.
type spool struct {
	f   *os.File
	w   *bufio.Writer
	enc *json.Encoder
}

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "contacts-import-*.jsonl")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	return &spool{f: f, w: w, enc: json.NewEncoder(w)}, nil
}

func (s *spool) add(r domain.Row) error { return s.enc.Encode(r) }

// reader rewinds the spool for reading its rows back, in order.
func (s *spool) reader() (func() (domain.Row, error), error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(s.f, 256<<10))
	return func() (domain.Row, error) {
		var r domain.Row
		err := dec.Decode(&r)
		return r, err
	}, nil
}

// close removes the spool.
func (s *spool) close() error {
	if s == nil {
		return nil
	}
	return errors.Join(s.f.Close(), os.Remove(s.f.Name()))
}
