-- The delivery log: one row per idempotency key, so each notification is
-- emitted once however often its event is replayed or redelivered.
CREATE TABLE notification_deliveries (
    idempotency_key     text PRIMARY KEY,
    type                text        NOT NULL,
    version             int         NOT NULL,
    organization_id     text        NOT NULL,
    source_event_id     text        NOT NULL,
    envelope            jsonb       NOT NULL,
    state               text        NOT NULL CHECK (state IN ('pending', 'published', 'delivered', 'invalid', 'parked', 'failed')),
    reason              text        NOT NULL DEFAULT '',
    created_at          timestamptz NOT NULL DEFAULT now(),
    published_at        timestamptz,
    delivered_at        timestamptz,
    delivery_attempts   int         NOT NULL DEFAULT 0,
    last_error          text        NOT NULL DEFAULT ''
);
CREATE INDEX notification_deliveries_todo ON notification_deliveries (created_at) WHERE state IN ('pending', 'invalid');
