-- Per-subject data keys for crypto-shredding: personal data in identity
-- events is sealed under its subject's key; permanent deletion deletes the
-- row, so every copy in the immutable log (and every replay) stays unreadable.
CREATE TABLE identity_data_keys (
    subject_id text        PRIMARY KEY,
    data_key   bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Deployment secrets of the identity service, generated once (the pepper of
-- email hashes). Kept out of events like the data keys.
CREATE TABLE identity_secrets (
    name  text  PRIMARY KEY,
    value bytea NOT NULL
);
