-- A delivery is claimed before its POST (issue 18): the holder and until when.
-- Two handlers of one key (two processes, two partitions, a redelivery) never
-- both POST; a claim left by a crash is taken over once it has expired.
ALTER TABLE notification_deliveries
    ADD COLUMN claimed_by    uuid,
    ADD COLUMN claimed_until timestamptz;
