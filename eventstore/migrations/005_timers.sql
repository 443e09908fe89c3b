-- Durable timers: "at due_at, issue the command of kind". Written by the
-- command that schedules them, in its transaction (event.Change.Timers); a
-- timer belongs to the stream that scheduled it, and (stream_id, name) is its
-- key, so a later command of that stream moves (seq + 1) or cancels it.
-- The scheduler claims due rows with FOR UPDATE SKIP LOCKED and a lease
-- (leased_until, also the time of the next try after a failure); the fired
-- command marks its row 'fired' in its own transaction, checking seq, so a
-- moved or cancelled timer never fires on its old schedule.
CREATE TABLE es_timers (
    stream_id       text        NOT NULL,
    name            text        NOT NULL,
    organization_id text        NOT NULL,
    kind            text        NOT NULL,
    due_at          timestamptz NOT NULL,
    payload         jsonb       NOT NULL DEFAULT 'null',
    seq             bigint      NOT NULL DEFAULT 1,
    state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'fired', 'cancelled', 'failed')),
    tries           int         NOT NULL DEFAULT 0, -- unsuccessful tries, outages included (backoff)
    failures        int         NOT NULL DEFAULT 0, -- tries that failed otherwise (parked after a few)
    leased_until    timestamptz,
    last_error      text,
    fired_at        timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, name)
) WITH (fillfactor = 70); -- rewritten by claims and marks: room for HOT updates
CREATE INDEX es_timers_due ON es_timers (due_at) WHERE state = 'pending';
