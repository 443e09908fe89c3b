package projections

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/platform/backend/internal/jsonenc"
)

// row is one Insert or Append of a reducer.
type row struct {
	table    string
	columns  []string
	conflict string
	target   string // table, columns and conflict clause (Insert's target key)
	values   []any
	appended bool // Append: no conflict clause, written by COPY
}

// rowKey groups a batch's rows: the same target, both Append or both Insert.
type rowKey struct {
	target   string
	appended bool
}

func (r *row) key() rowKey { return rowKey{r.target, r.appended} }

// copyRows is how many Append rows of a table a batch has at least for the
// runner to COPY them; fewer go in one multi-row INSERT in the batch's
// pipeline, which saves COPY's round trip.
const copyRows = 32

// copyGroup is a batch's Append rows of one table and columns, to COPY.
type copyGroup struct {
	table   string // resolved
	columns []string
	rows    [][]any
}

// rowGroups collects a batch's Insert rows by target, in first-seen order.
type rowGroups struct {
	order  []rowKey
	groups map[rowKey][]*row
}

func (g *rowGroups) add(r *row) error {
	if len(r.values) != len(r.columns) {
		return fmt.Errorf("insert into %s: %d values for %d columns", r.table, len(r.values), len(r.columns))
	}
	if g.groups == nil {
		g.groups = map[rowKey][]*row{}
	}
	k := r.key()
	if _, ok := g.groups[k]; !ok {
		g.order = append(g.order, k)
	}
	g.groups[k] = append(g.groups[k], r)
	return nil
}

// queue adds one multi-row INSERT per group of Insert rows (unnestSQL).
// Groups of Append
// rows are returned to COPY when they are large, and otherwise queued as
// one INSERT ... VALUES (the same binary encoding of each value by its
// column's type as COPY's).
func (g *rowGroups) queue(b *pgx.Batch, names *strings.Replacer) ([]copyGroup, error) {
	var copies []copyGroup
	for _, k := range g.order {
		rows := g.groups[k]
		first := rows[0]
		values := make([][]any, len(rows))
		for i, r := range rows {
			values[i] = r.values
		}
		if first.appended {
			table := names.Replace(first.table)
			if len(rows) >= copyRows {
				copies = append(copies, copyGroup{table: table, columns: first.columns, rows: values})
				continue
			}
			queueValues(b, table, first.columns, values)
			continue
		}
		b.Queue(names.Replace(unnestSQL(first)), columnArrays(first.columns, values)...)
	}
	return copies, nil
}

// unnestSQL is the multi-row INSERT of an Insert target: one array
// parameter a column, each typed by its column (COALESCE with an array of
// the column's own type makes PostgreSQL infer the parameter's type from
// the table, so no column type is spelled out here or read from the
// catalog), sent in the binary format, whatever the number of rows: one
// prepared statement a target. It replaces jsonb_populate_recordset, which
// parsed the rows' JSON and then every member again through its column
// type's text input (a jsonb member twice): measured, a third of the
// statement's CPU in PostgreSQL for the notification projection's rows.
func unnestSQL(r *row) string {
	return statementSQL("unnest\x00"+r.target, func() string {
		return strings.TrimSuffix(`INSERT INTO `+r.table+` (`+strings.Join(r.columns, ", ")+`) SELECT * FROM unnest(`+
			unnestArrays(r.table, r.columns)+`) `+r.conflict, " ")
	})
}

// unnestArrays is unnest's arguments for columns of table: parameter $i,
// an array of the i-th column's type.
func unnestArrays(table string, columns []string) string {
	arrays := make([]string, len(columns))
	for i, c := range columns {
		arrays[i] = fmt.Sprintf("COALESCE($%d, ARRAY[(NULL::%s).%s])", i+1, table, c)
	}
	return strings.Join(arrays, ", ")
}

// columnArrays turns rows into one array a column for unnestSQL. Each
// value is encoded as pgx encodes a parameter of its column's type, after
// arrayValue keeps the values that encoding would write otherwise than
// the JSON rows did as they were.
func columnArrays(columns []string, rows [][]any) []any {
	arrays := make([]any, len(columns))
	for j := range columns {
		col := make(columnArray, len(rows))
		for i, values := range rows {
			col[i] = arrayValue(values[j])
		}
		arrays[j] = col
	}
	return arrays
}

// columnArray is a column's values as pgx encodes an array parameter (a
// pgtype.ArrayGetter): each element by the plan of its own type, as for a
// []any, which pgx reads through reflect instead (measured: two thirds of
// the parameters' encoding in the live group's batches). A typed slice
// ([]string) is no better: pgx's generic wrapper boxes every element.
type columnArray []any

func (a columnArray) Dimensions() []pgtype.ArrayDimension {
	if a == nil {
		return nil
	}
	return []pgtype.ArrayDimension{{Length: int32(len(a)), LowerBound: 1}}
}

func (a columnArray) Index(i int) any { return a[i] }

// IndexType is what a []any's is: no type (each element is planned by its own).
func (a columnArray) IndexType() any { return nil }

// arrayValue is v as the rows' JSON wrote it into its column, for the
// values whose binary encoding says otherwise: JSON holding null (an empty
// EncodedJSON, a json.RawMessage "null") is SQL NULL, an EncodedJSON is its
// bytes (pgx would run its MarshalJSON through json.Marshal: the cost
// EncodedJSON avoids), a time is rounded to the microsecond as
// PostgreSQL's text input rounds (half to even; pgx truncates), and
// invalid UTF-8 in a string is replaced as encoding/json replaced it.
func arrayValue(v any) any {
	switch x := v.(type) {
	case EncodedJSON:
		if len(x) == 0 || isJSONNull(x) {
			return nil
		}
		return json.RawMessage(x)
	case json.RawMessage:
		if x == nil || isJSONNull(x) {
			return nil
		}
	case time.Time:
		return roundMicro(x)
	case *time.Time:
		if x == nil {
			return nil
		}
		return roundMicro(*x)
	case string:
		if !utf8.ValidString(x) {
			return validUTF8(x)
		}
	case *string:
		if x == nil {
			return nil
		}
		if !utf8.ValidString(*x) {
			return validUTF8(*x)
		}
	}
	return v
}

func isJSONNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

// roundMicro rounds t to the microsecond, half to even (rint, as
// PostgreSQL's timestamptz input rounds a fraction of a second).
func roundMicro(t time.Time) time.Time {
	ns := t.Nanosecond() % 1000
	t = t.Add(-time.Duration(ns))
	if ns > 500 || ns == 500 && (t.Nanosecond()/1000)%2 == 1 {
		t = t.Add(time.Microsecond)
	}
	return t
}

// validUTF8 replaces each byte of s that is not part of valid UTF-8 with
// U+FFFD, as encoding/json writes such a string.
func validUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// queueValues queues rows as one INSERT ... VALUES.
func queueValues(b *pgx.Batch, table string, columns []string, rows [][]any) {
	var sql strings.Builder
	sql.WriteString("INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES ")
	args := make([]any, 0, len(rows)*len(columns))
	for i, values := range rows {
		if i > 0 {
			sql.WriteByte(',')
		}
		sql.WriteByte('(')
		for j := range values {
			if j > 0 {
				sql.WriteByte(',')
			}
			args = append(args, values[j])
			fmt.Fprintf(&sql, "$%d", len(args))
		}
		sql.WriteByte(')')
	}
	b.Queue(sql.String(), args...)
}

// encodeObjects writes rows as a JSON array of objects, one member per
// column: the bytes json.Marshal of one map per row wrote (members in the
// order of their names), without building a map and sorting its keys for
// every row. The usual values (appendPlain) are written without
// encoding/json's reflection.
func encodeObjects(columns []string, rows [][]any) ([]byte, error) {
	order := make([]int, len(columns))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(columns[a], columns[b]) })
	keys := make([][]byte, len(columns))
	for i, c := range columns {
		k, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		keys[i] = append(k, ':')
	}
	buf := bytes.NewBuffer(make([]byte, 0, 256*len(rows)))
	enc := json.NewEncoder(buf)
	buf.WriteByte('[')
	for i, values := range rows {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('{')
		for n, j := range order {
			if n > 0 {
				buf.WriteByte(',')
			}
			buf.Write(keys[j])
			if b, ok := appendPlain(buf.AvailableBuffer(), values[j]); ok {
				buf.Write(b)
				continue
			}
			if err := enc.Encode(values[j]); err != nil {
				return nil, err
			}
			buf.Truncate(buf.Len() - 1) // Encode's newline
		}
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// EncodedJSON is a row value the caller's encoder wrote as json.Marshal
// writes (compact, HTML characters escaped: json.Marshal's output or bytes
// equal to it): the runner writes it into the batch's rows as is, where a
// json.RawMessage is scanned, compacted and escaped again by encoding/json
// (measured: ~6 µs a notification envelope, more than half of what the
// notification projection's Reduce costs). Elsewhere (a statement's
// argument, json.Marshal) it is the JSON value it holds.
type EncodedJSON []byte

// MarshalJSON is the value itself (checked by encoding/json, which also
// keeps pgx from writing the bytes as a base64 string).
func (j EncodedJSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// appendPlain appends v as encoding/json writes it, for the values rows
// mostly hold: an EncodedJSON as it is, and jsonenc.AppendValue's (nil,
// strings, integers, booleans, times...); ok is false for anything else,
// which encoding/json writes (or refuses).
func appendPlain(b []byte, v any) ([]byte, bool) {
	if x, ok := v.(EncodedJSON); ok {
		if len(x) == 0 {
			return b, false
		}
		return append(b, x...), true
	}
	return jsonenc.AppendValue(b, v)
}
