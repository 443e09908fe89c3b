-- The answers of the gateway's calls made with an Idempotency-Key
-- (commands/gateway/answers.go), one row per organization and key: claimed
-- before the provider is called (state running, expires_at its lease: a
-- process that died with the call frees it then), then the call's 2xx
-- answer, sealed with the key ring and bound to the row (state answered,
-- expires_at 24 hours on). A failed call deletes its row. The sweeper
-- deletes expired rows; a lookup treats them as absent anyway.
CREATE TABLE gateway_idempotency (
    organization_id text        NOT NULL,
    key             text        NOT NULL,
    request_hash    text        NOT NULL, -- action, path and input: another request under the key is 422
    claim           text        NOT NULL, -- the running call's token: only it keeps or releases the row
    state           text        NOT NULL, -- running | answered
    key_id          text,                 -- the answer, sealed (AES-256-GCM) under this key of the ring
    nonce           bytea,
    answer          bytea,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (organization_id, key)
);
CREATE INDEX gateway_idempotency_expiry ON gateway_idempotency (expires_at);
