-- The outbox is also the write side's event store: rows stay after they are
-- published (published_at set), so commands can load a stream's history.
CREATE TABLE es_events (
    global_seq      bigserial PRIMARY KEY,
    event_id        uuid        NOT NULL UNIQUE,
    stream_type     text        NOT NULL,
    stream_id       text        NOT NULL,
    stream_version  bigint      NOT NULL,
    event_type      text        NOT NULL,
    schema_version  int         NOT NULL,
    organization_id text        NOT NULL,
    actor_id        text        NOT NULL,
    actor_type      text        NOT NULL,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL,
    idempotency_key text        NOT NULL DEFAULT '',
    correlation_id  text        NOT NULL DEFAULT '',
    causation_id    text        NOT NULL DEFAULT '',
    payload         jsonb       NOT NULL,
    topic           text        NOT NULL,
    published_at    timestamptz,
    UNIQUE (stream_id, stream_version)
);
CREATE INDEX es_events_unpublished ON es_events (global_seq) WHERE published_at IS NULL;

-- Stream heads: the optimistic concurrency check of every append.
CREATE TABLE es_streams (
    stream_id       text   PRIMARY KEY,
    stream_type     text   NOT NULL,
    organization_id text   NOT NULL,
    version         bigint NOT NULL
);

-- One row per accepted Idempotency-Key: the first result is replayed.
CREATE TABLE es_idempotency (
    scope          text        NOT NULL,
    key            text        NOT NULL,
    request_hash   text        NOT NULL,
    result         jsonb       NOT NULL,
    stream_id      text        NOT NULL,
    stream_version bigint      NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);
