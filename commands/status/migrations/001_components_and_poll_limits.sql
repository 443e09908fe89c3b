-- An organization's components are listed from the write side (the stream
-- heads of their streams, whose snapshot is the component's state), so a
-- poll sees every component registered before it, whatever the read model's
-- lag. The partial index keeps that list one index range per organization
-- instead of a scan of every stream head. Its columns never change on
-- update, so stream-head updates stay HOT.
CREATE INDEX es_streams_status_components ON es_streams (organization_id, stream_id)
    WHERE stream_type = 'status.component';

-- The earliest time of each organization's next manual poll (POST /poll),
-- claimed atomically by the poll that may run, in whatever process.
CREATE TABLE status_poll_limits (
    organization_id text        PRIMARY KEY,
    next_at         timestamptz NOT NULL
);
