-- Values that must be unique across streams (organization slugs, emails).
-- Claimed and released by events in the command's transaction; the owner is
-- the stream that claimed the value, so a retried claim by it succeeds.
CREATE TABLE es_unique (
    kind      text NOT NULL,
    value     text NOT NULL,
    stream_id text NOT NULL,
    PRIMARY KEY (kind, value)
);

-- A write model's saved state at snapshot_version, so commands load the
-- snapshot and the events after it instead of the whole stream.
-- snapshot_schema is the write model's snapshot format; a model whose format
-- changed ignores older snapshots and folds the whole stream again.
ALTER TABLE es_streams
    ADD COLUMN snapshot         jsonb,
    ADD COLUMN snapshot_version bigint NOT NULL DEFAULT 0,
    ADD COLUMN snapshot_schema  int    NOT NULL DEFAULT 0;
