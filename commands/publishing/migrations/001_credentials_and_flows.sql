-- A connection's tokens, sealed (AES-256-GCM under the platform's key ring;
-- the connection id is the additional data, so a sealed value moved to
-- another row does not open). Never in an event: the log is kept forever
-- and copied to Kafka.
CREATE TABLE publishing_credentials (
    connection_id   text        PRIMARY KEY,
    organization_id text        NOT NULL,
    brand_id        text        NOT NULL,
    network         text        NOT NULL,
    sealed          bytea       NOT NULL,
    expires_at      timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX publishing_credentials_expiry ON publishing_credentials (expires_at) WHERE expires_at IS NOT NULL;

-- One OAuth connect attempt between the redirect and the callback: the
-- state (stored as its SHA-256) finds it once; the PKCE verifier is sealed.
CREATE TABLE publishing_oauth_flows (
    state_hash      text        PRIMARY KEY,
    organization_id text        NOT NULL,
    brand_id        text        NOT NULL,
    network         text        NOT NULL,
    user_id         text        NOT NULL,
    redirect_uri    text        NOT NULL,
    sealed_verifier bytea       NOT NULL,
    expires_at      timestamptz NOT NULL
);

-- The key the sealer derives from when no key is configured (development
-- only: production configures PUBLISHING_TOKEN_KEY or the gateway key ring).
CREATE TABLE publishing_secrets (
    name  text  PRIMARY KEY,
    value bytea NOT NULL
);
