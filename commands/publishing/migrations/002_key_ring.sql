-- Secrets are sealed with the gateway's key ring: the key id names the
-- ring's key, the nonce is kept apart. A row without a key id is the legacy
-- form (publishing's own key, nonce before the ciphertext in sealed): still
-- read, re-sealed under the ring by the next save or the re-seal sweep.
ALTER TABLE publishing_credentials ADD COLUMN key_id text, ADD COLUMN nonce bytea;
ALTER TABLE publishing_oauth_flows ADD COLUMN key_id text, ADD COLUMN verifier_nonce bytea;
CREATE INDEX publishing_credentials_key ON publishing_credentials (key_id);
