-- The relay reads in commit order instead of marking rows published: every
-- row carries its transaction id, and the relay only reads rows of
-- transactions older than the oldest one still running
-- (pg_snapshot_xmin(pg_current_snapshot())), so a row that commits late is
-- never skipped. A cursor (tx_id, global_seq) replaces the per-row UPDATE
-- that rewrote every event row and its four index entries.
ALTER TABLE es_events ADD COLUMN tx_id xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX es_events_commit_order ON es_events (tx_id, global_seq);

CREATE TABLE es_relay_cursor (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    tx_id      xid8   NOT NULL,
    global_seq bigint NOT NULL
);
-- Existing rows all got this migration's transaction id. Resume at the first
-- row not yet published (re-sending some later published ones is harmless:
-- duplicates carry the same event id and readers drop them).
INSERT INTO es_relay_cursor (tx_id, global_seq)
SELECT pg_current_xact_id(), COALESCE(
    (SELECT min(global_seq) - 1 FROM es_events WHERE published_at IS NULL),
    (SELECT max(global_seq) FROM es_events),
    0);

DROP INDEX es_events_unpublished;
ALTER TABLE es_events DROP COLUMN published_at;
