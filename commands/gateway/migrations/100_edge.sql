-- The gateway's edge on the write side: what the metered path and the
-- webhook routes read per call, written in the transaction of the command
-- whose events they mirror (commands.Also), like gateway_caps. The events
-- are the record; the ciphertext of credentials is the one thing that is
-- only here, never in an event.

-- Every connection, as the metered path resolves it (an organization's
-- newest active connection of a provider, or one named by id) and as a
-- webhook route finds it (by id, any organization).
CREATE TABLE gateway_connection_index (
    connection_id      text        PRIMARY KEY,
    organization_id    text        NOT NULL,
    provider           text        NOT NULL,
    kind               text        NOT NULL,
    status             text        NOT NULL,
    app_id             text,
    webhook_url        text,
    settings           jsonb       NOT NULL,
    token_expires_at   timestamptz,
    warned_expiry      timestamptz,
    credential_version bigint      NOT NULL,
    created_at         timestamptz NOT NULL
);
CREATE INDEX gateway_connection_index_active ON gateway_connection_index (organization_id, provider, created_at DESC)
    WHERE status = 'active';
-- The daily scan's candidates: active connections with an expiry not yet warned.
CREATE INDEX gateway_connection_index_expiry ON gateway_connection_index (token_expires_at)
    WHERE status = 'active' AND token_expires_at IS NOT NULL;

-- Credentials: the secret members of a connection, sealed together with
-- AES-256-GCM under the key ring's key key_id (additional data: the
-- credential id and organization). A deleted connection's row is deleted.
CREATE TABLE gateway_credentials (
    credential_id   text        PRIMARY KEY,
    connection_id   text        NOT NULL UNIQUE,
    organization_id text        NOT NULL,
    key_id          text        NOT NULL,
    nonce           bytea       NOT NULL,
    ciphertext      bytea       NOT NULL,
    version         bigint      NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX gateway_credentials_key ON gateway_credentials (key_id);

-- A sent message's provider id -> its delivery, for the receipts (bounces)
-- that provider webhooks bring.
CREATE TABLE gateway_delivery_index (
    provider        text NOT NULL,
    message_id      text NOT NULL,
    delivery_id     text NOT NULL,
    organization_id text NOT NULL,
    PRIMARY KEY (provider, message_id)
);

-- The raw body of a verified inbound webhook, kept for its relay to the
-- owning app (bodies can hold personal data: not in the log, which keeps
-- their digest).
CREATE TABLE gateway_webhook_bodies (
    webhook_id      text        PRIMARY KEY,
    organization_id text        NOT NULL,
    content_type    text        NOT NULL,
    body            bytea       NOT NULL,
    received_at     timestamptz NOT NULL
);
