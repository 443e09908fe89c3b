-- A destroyed data key leaves its row as a marker (data_key NULL,
-- destroyed_at set): sealing for an erased subject must fail, never
-- silently make a new key that would let data of the erased id be written
-- and read again. Subjects erased before this migration (their rows were
-- deleted) get their marker from the erasure events.
ALTER TABLE identity_data_keys ALTER COLUMN data_key DROP NOT NULL;
ALTER TABLE identity_data_keys ADD COLUMN destroyed_at timestamptz;
ALTER TABLE identity_data_keys ADD CONSTRAINT identity_data_keys_destroyed
    CHECK ((data_key IS NULL) = (destroyed_at IS NOT NULL));
INSERT INTO identity_data_keys (subject_id, data_key, destroyed_at)
    SELECT DISTINCT stream_id, NULL::bytea, now() FROM es_events
    WHERE event_type IN ('identity.user.permanently_deleted', 'identity.organization.permanently_deleted')
ON CONFLICT (subject_id) DO UPDATE SET data_key = NULL, destroyed_at = now();
