package eventstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/platform/backend/domain/errs"
)

// BatchItem is one command of a batch (ExecuteBatch): a command on its
// stream and its decider, exactly as Execute takes them.
type BatchItem struct {
	Command Command
	Decide  Decider
}

// BatchResult is what one item of a batch came to: its outcome, or its own
// error. Another item's failure is never an item's error.
type BatchResult struct {
	Outcome Outcome
	Err     error
}

// SharedWrites turns the decisions of a transaction's items that append
// (in item order) into write-side statements run after theirs, in the same
// transaction: one statement for rows that many items change (a counter
// summed once instead of once per item), in an order every writer follows,
// so that two batches never lock the same rows in opposite orders. An item
// executed alone gets the writes of its own decision.
type SharedWrites func(appended []Decision) []Write

// ExecuteBatch runs several commands in one transaction (a group commit):
// each is decided on its own stream's history under that stream's lock,
// with its own idempotency key, tenant check, unique claims, timers and
// writes, exactly as Execute would run it alone, and all of them commit
// together, in two round trips however many there are (locks and reads in
// one, writes and COMMIT in the other; an item's Prepare and unique claims
// add theirs), or one when every item's stream is new (Command.New) or
// known (its history kept from this process's last write: knownStreams).
// Results are in item order.
//
// An item's failure stays its own: a decider's refusal, a replayed or
// reused idempotency key, a stale timer or a unique value taken leave the
// other items in the transaction. A statement the database refuses aborts
// the transaction as a whole; the items are then executed again one by
// one, so the one at fault fails alone and the others are recorded. When
// the database is unavailable every item still pending gets that error and
// nothing is recorded twice: the transaction committed entirely or not at
// all, and a caller retrying an item re-decides on what is there.
//
// Items on the same stream, or with the same idempotency key, run in
// successive transactions, in item order: each decides on what the one
// before it appended.
func (s *Store) ExecuteBatch(ctx context.Context, items []BatchItem, shared SharedWrites) []BatchResult {
	results := make([]BatchResult, len(items))
	for _, round := range rounds(items) {
		s.executeRound(ctx, items, round, shared, results)
	}
	return results
}

// rounds splits the items into transactions in which no stream and no
// idempotency key appears twice, keeping each stream's items in order.
func rounds(items []BatchItem) [][]int {
	var out [][]int
	next := map[string]int{} // the first round a stream or key is free in
	for i, it := range items {
		stream := "s:" + it.Command.StreamID
		r := next[stream]
		key := ""
		if it.Command.IdempotencyKey != "" {
			key = "k:" + idempotencyLock(it.Command)
			r = max(r, next[key])
		}
		if r == len(out) {
			out = append(out, nil)
		}
		out[r] = append(out[r], i)
		next[stream] = r + 1
		if key != "" {
			next[key] = r + 1
		}
	}
	return out
}

// executeRound runs one transaction of a batch and fills in its items'
// results. With more than one item, a statement the database refuses
// leaves the items to run again one by one; a lone item fails with it.
func (s *Store) executeRound(ctx context.Context, items []BatchItem, round []int, shared SharedWrites, results []BatchResult) {
	var live []int
	topics := make(map[int]string, len(round))
	for _, i := range round {
		topic, err := s.topics.ForStreamType(items[i].Command.StreamType)
		if err != nil {
			results[i].Err = err
			continue
		}
		topics[i] = topic
		live = append(live, i)
	}
	if len(live) == 0 {
		return
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		for _, i := range live {
			results[i].Err = classify(err)
		}
		return
	}
	// A connection left inside a transaction is destroyed on release, never reused.
	defer conn.Release()
	pending, err := s.batch(ctx, conn.Conn(), items, live, topics, shared, results)
	if err == nil {
		return
	}
	if conn.Conn().PgConn().TxStatus() != 'I' {
		if _, rbErr := conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`); rbErr != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck
		}
	}
	err = classify(err)
	if len(live) == 1 || commandsWait(err) {
		for _, i := range pending {
			results[i] = BatchResult{Err: err}
		}
		return
	}
	// A statement was refused: the transaction is gone, and which item's
	// statement it was is not known. Each item runs again alone.
	for _, i := range pending {
		results[i] = s.executeAlone(ctx, BatchItem{Command: items[i].Command, Decide: alone(items[i].Decide, shared)})
	}
}

// executeAlone runs one command in a transaction of its own.
func (s *Store) executeAlone(ctx context.Context, it BatchItem) BatchResult {
	results := make([]BatchResult, 1)
	s.executeRound(ctx, []BatchItem{it}, []int{0}, nil, results)
	return results[0]
}

// commandsWait: the database is down or overloaded (or the caller gave
// up), so running the items alone would only fail again.
func commandsWait(err error) bool {
	return errs.KindOf(err) == errs.KindUnavailable || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// alone is an item's decider with the shared writes of its own decision,
// for an item executed by itself.
func alone(decide Decider, shared SharedWrites) Decider {
	return func(history []Event) (Decision, error) {
		d, err := decide(history)
		if err == nil && shared != nil && len(d.Events) > 0 {
			d.Writes = append(slices.Clip(d.Writes), shared([]Decision{d})...)
		}
		return d, err
	}
}

// batch is one transaction of a batch, in two round trips: the locks and
// the reads, then the writes and COMMIT (an item's Prepare and unique
// claims add theirs); in one when every item's stream is new (Command.New:
// nothing to read) or known (knownStreams: its history kept from this
// process's last write). It returns the items whose writes were in the
// transaction, and the error that ended the transaction, if any (the
// items' own errors are in results).
func (s *Store) batch(ctx context.Context, conn *pgx.Conn, items []BatchItem, live []int, topics map[int]string,
	shared SharedWrites, results []BatchResult) ([]int, error) {
	var assumed []loaded // what the one-round-trip attempt decided on
	if reads, known, ok := s.unread(items, live); ok {
		var reread []int
		pending, err := s.write(ctx, conn, items, live, topics, shared, results, reads, known, &reread)
		if err == nil && len(reread) > 0 {
			// Decided on kept histories without appending: not answered
			// from memory (the stream may have moved), but read again.
			knownStreamUses.WithLabelValues("reread").Add(float64(len(reread)))
			for _, i := range reread {
				s.known.forget(items[i].Command.StreamID)
			}
			// The others are committed: what fails now is these alone.
			return s.batch(ctx, conn, items, reread, topics, shared, results)
		}
		if !errors.Is(err, errNotNew) && !streamTaken(err) && !keyTaken(err) {
			return pending, err
		}
		// A stream was there (its version taken) or had moved, an
		// idempotency key was used before, or a decision claims a unique
		// value: the transaction, if it began, is rolled back, and runs
		// again the usual way.
		if conn.PgConn().TxStatus() != 'I' {
			if _, err := conn.Exec(ctx, `ROLLBACK`); err != nil {
				return pending, err
			}
		}
		for _, i := range live {
			results[i] = BatchResult{}
		}
		assumed = reads
	}
	reads, err := beginBatch(ctx, conn, items, live)
	if err != nil {
		return live, err
	}
	if assumed != nil {
		s.sortOutMoved(items, live, assumed, reads)
	}
	return s.write(ctx, conn, items, live, topics, shared, results, reads, nil, nil)
}

// unread returns, when every item's history is known without reading it
// (a new stream's is empty; a known stream's is kept), those histories, and
// which are kept ones.
func (s *Store) unread(items []BatchItem, live []int) ([]loaded, []bool, bool) {
	reads := make([]loaded, len(live))
	known := make([]bool, len(live))
	for n, i := range live {
		cmd := items[i].Command
		if newStream(cmd) {
			continue
		}
		h, ok := s.known.history(cmd)
		if !ok {
			return nil, nil, false
		}
		reads[n].history, known[n] = h, true
	}
	return reads, known, true
}

// sortOutMoved compares the kept histories a refused one-round-trip
// attempt decided on with what was then read: the streams that had moved
// are contended (knownStreams.moved).
func (s *Store) sortOutMoved(items []BatchItem, live []int, assumed, read []loaded) {
	now := time.Now()
	for n, i := range live {
		cmd := items[i].Command
		if newStream(cmd) {
			continue
		}
		if headVersion(assumed[n].history) != headVersion(read[n].history) {
			knownStreamUses.WithLabelValues("reread").Inc()
			s.known.moved(cmd.StreamID, now)
		}
	}
}

// errNotNew ends a transaction of new streams (Command.New) before anything
// is sent: a decision claims unique values, which takes a round trip of its
// own inside the transaction.
var errNotNew = errors.New("eventstore: a decision on a new stream claims unique values")

// newStream: the command's stream is new and needs nothing read or locked
// before its decision (Command.New).
func newStream(cmd Command) bool {
	return cmd.New && cmd.IdempotencyKey == "" && cmd.Fires == nil && cmd.Prepare == nil && cmd.Snapshot == nil
}

// streamTaken: an append found its stream version taken (the unique
// (stream_id, stream_version) of es_events).
func streamTaken(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "es_events_stream_id_stream_version_key"
}

// keyTaken: an idempotency record's insert found its key used (the primary
// key of es_idempotency): only a command decided without looking its key up
// (knownStreams) gets there.
func keyTaken(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "es_idempotency_pkey"
}

// write decides the items on what was read and sends their writes and
// COMMIT in one round trip. known is set when nothing was read (new
// streams, and the known ones it marks): BEGIN and the streams' locks go
// at the head of that round trip, and the known items decided without
// appending are left unanswered, in reread, to be read and decided again.
func (s *Store) write(ctx context.Context, conn *pgx.Conn, items []BatchItem, live []int, topics map[int]string,
	shared SharedWrites, results []BatchResult, reads []loaded, known []bool, reread *[]int) ([]int, error) {
	begin := known != nil
	now := s.now().UTC()
	var rows appends
	b := &pgx.Batch{}
	var pending []int
	var appended []Decision
	var notify []string
	type kept struct {
		cmd     Command
		history []Event
	}
	var after []kept
	hits := 0
	for n, i := range live {
		cmd, r := items[i].Command, reads[n]
		out, d, err := s.decideItem(ctx, conn, cmd, items[i].Decide, r, len(live) > 1, begin)
		if errors.Is(err, errNotNew) {
			return nil, err
		}
		if begin && known[n] && (err != nil || out.Replayed || len(d.Events) == 0) {
			*reread = append(*reread, i)
			continue
		}
		if err != nil {
			if conn.PgConn().TxStatus() == 'E' {
				// A statement of the item's (a claim, its Prepare) was
				// refused: the transaction cannot go on.
				return append(pending, i), err
			}
			results[i].Err = err
			continue
		}
		if out.Replayed || (len(d.Events) == 0 && cmd.Fires == nil) {
			results[i].Outcome = out
			continue
		}
		// The fired timer is marked before the decision's own timer changes,
		// so a command that schedules the same name again leaves a new
		// pending timer.
		queueTimerFired(b, cmd.Fires)
		if len(d.Events) > 0 {
			from := len(rows.ids)
			if out.Position, err = rows.add(topics[i], cmd, headVersion(r.history), d, out.Result); err != nil {
				return append(pending, i), err
			}
			if usable(cmd) {
				h, err := rows.history(from, r.history, cmd, now)
				if err != nil {
					return append(pending, i), err
				}
				after = append(after, kept{cmd, h})
			}
			if err := queueTimers(b, cmd, d.Events); err != nil {
				return append(pending, i), err
			}
			queueWrites(b, d.Writes)
			appended = append(appended, d)
			if s.notifies(cmd.StreamType) {
				notify = append(notify, cmd.StreamID)
			}
			if begin && known[n] {
				hits++
			}
		}
		results[i].Outcome = out
		pending = append(pending, i)
	}
	if len(pending) == 0 {
		if begin {
			return nil, nil // no transaction was begun
		}
		_, err := conn.Exec(ctx, `ROLLBACK`)
		return nil, err
	}
	end := &pgx.Batch{}
	if begin {
		cmds := make([]Command, len(live))
		for n, i := range live {
			cmds[n] = items[i].Command
		}
		end.Queue(`BEGIN`)
		end.Queue(genericPlans)
		queueLocks(end, cmds)
	}
	rows.queue(end, now)
	end.QueuedQueries = append(end.QueuedQueries, b.QueuedQueries...)
	if shared != nil && len(appended) > 0 {
		queueWrites(end, shared(appended))
	}
	queueNotify(end, notify)
	// COMMIT rides in the same round trip. The optimistic check is the
	// unique (stream_id, stream_version) of es_events: a version written by
	// anyone who bypassed the stream lock, or since the history this
	// process kept (knownStreams), fails the insert, the server skips the
	// rest of the pipeline, COMMIT included, and the transaction is rolled
	// back.
	end.Queue(`COMMIT`)
	err := conn.SendBatch(ctx, end).Close()
	// This process's watches forget the heads before anyone is answered, so
	// a change applies here at once (other processes get the notification);
	// also after an error, which may hide a commit.
	s.announce(notify)
	if err != nil {
		// Whether COMMIT happened is not known: the kept histories of the
		// transaction's streams go.
		for _, i := range live {
			s.known.forget(items[i].Command.StreamID)
		}
		return pending, err
	}
	for _, k := range after {
		s.known.remember(k.cmd, k.history, now)
	}
	knownStreamUses.WithLabelValues("hit").Add(float64(hits))
	return pending, nil
}

// beginBatch is a batch's first round trip: BEGIN, generic plans
// (genericPlans), the idempotency keys' and the streams' locks (queueLocks), every item's idempotency record and
// stream in one statement (queueReads), then the timer checks. Results
// are in the order of live.
func beginBatch(ctx context.Context, conn *pgx.Conn, items []BatchItem, live []int) ([]loaded, error) {
	cmds := make([]Command, len(live))
	specs := make([]readSpec, len(live))
	for n, i := range live {
		cmd := items[i].Command
		cmds[n] = cmd
		specs[n] = readSpec{streamID: cmd.StreamID, schema: cmd.Snapshot.schema()}
		if cmd.IdempotencyKey != "" {
			specs[n].scope, specs[n].key = cmd.OrganizationID, cmd.IdempotencyKey
		}
	}
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(genericPlans)
	queueLocks(b, cmds)
	queueReads(b, specs)
	for _, cmd := range cmds {
		queueTimerCheck(b, cmd.Fires)
	}
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	for range 3 {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	reads, err := readReads(br, specs)
	if err != nil {
		return nil, err
	}
	for n, cmd := range cmds {
		if err := readTimerCheck(br, cmd.Fires); err != nil {
			if !errors.Is(err, ErrTimerStale) {
				return nil, err
			}
			reads[n].err = err
		}
	}
	return reads, br.Close()
}

// decideItem is one item's decision: a replayed idempotency key answers
// the first result, another tenant's stream is not found, then the item's
// Prepare, its decider and its unique claims (with batch-mates, in a
// savepoint, so a value taken undoes this item's claims only).
func (s *Store) decideItem(ctx context.Context, conn *pgx.Conn, cmd Command, decide Decider, r loaded, mates, unread bool) (Outcome, Decision, error) {
	if r.prev.found {
		if r.prev.hash != cmd.RequestHash {
			return Outcome{}, Decision{}, errs.IdempotencyMismatch()
		}
		return Outcome{Result: r.prev.result, Position: r.prev.pos, Replayed: true}, Decision{}, nil
	}
	if r.err != nil {
		return Outcome{}, Decision{}, r.err
	}
	if len(r.history) > 0 && r.history[0].OrganizationID != cmd.OrganizationID {
		// Another tenant's stream id is indistinguishable from a missing one.
		return Outcome{}, Decision{}, errs.NotFound(cmd.StreamType)
	}
	if err := prepare(ctx, conn, cmd); err != nil {
		return Outcome{}, Decision{}, err
	}
	d, err := safeDecide(decide, r.history)
	if err != nil {
		return Outcome{}, Decision{}, err
	}
	result, err := encodeJSON(d.Result)
	if err != nil {
		return Outcome{}, Decision{}, fmt.Errorf("encode result: %w", err)
	}
	out := Outcome{Result: result, Position: Position{StreamID: cmd.StreamID, Version: headVersion(r.history)}}
	if !claims(d) {
		return out, d, nil
	}
	if unread {
		return Outcome{}, Decision{}, errNotNew
	}
	if !mates {
		return out, d, claimUnique(ctx, conn, cmd.StreamID, d.Events)
	}
	if _, err := conn.Exec(ctx, `SAVEPOINT batch_item`); err != nil {
		return Outcome{}, Decision{}, err
	}
	if err := claimUnique(ctx, conn, cmd.StreamID, d.Events); err != nil {
		if conn.PgConn().TxStatus() == 'T' {
			if _, rbErr := conn.Exec(ctx, `ROLLBACK TO SAVEPOINT batch_item`); rbErr != nil {
				return Outcome{}, Decision{}, rbErr
			}
		}
		return Outcome{}, Decision{}, err
	}
	_, err = conn.Exec(ctx, `RELEASE SAVEPOINT batch_item`)
	return out, d, err
}

// safeDecide runs a decider; a panic in it is that item's error, not its
// batch-mates' (deciders are pure, so nothing is left half done).
func safeDecide(decide Decider, history []Event) (d Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("eventstore: the decider panicked: %v", p)
		}
	}()
	return decide(history)
}

// claims reports a decision with unique claims or releases.
func claims(d Decision) bool {
	for _, e := range d.Events {
		if len(e.Unique) > 0 {
			return true
		}
	}
	return false
}
