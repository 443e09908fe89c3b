-- Reactors (process managers) consume the log with consumer groups of their
-- own. Their Kafka position per partition is kept here; a reactor's commands
-- are their own transactions, so the checkpoint follows them: a crash between
-- a command and its checkpoint redelivers the event, and the command's
-- idempotency key (derived from the event id and the step) makes it a no-op.
CREATE TABLE reactor_checkpoints (
    reactor     text        NOT NULL,
    topic       text        NOT NULL,
    partition   int         NOT NULL,
    next_offset bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reactor, topic, partition)
) WITH (fillfactor = 50); -- rewritten per batch: room for HOT updates

-- Events a reactor could not handle: recorded with the checkpoint that moves
-- past them, then copied to the dead-letter topic.
CREATE TABLE reactor_failures (
    reactor    text        NOT NULL,
    topic      text        NOT NULL,
    partition  int         NOT NULL,
    "offset"   bigint      NOT NULL,
    event_id   text        NOT NULL,
    event_type text        NOT NULL,
    attempts   int         NOT NULL,
    reason     text        NOT NULL,
    parked_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reactor, topic, partition, "offset")
);
