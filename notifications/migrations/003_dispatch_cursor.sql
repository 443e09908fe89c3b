-- The dispatcher reads the delivery log in commit order past a cursor, as the
-- relay reads the outbox (eventstore 003_relay_horizon.sql), instead of
-- marking every row published: the UPDATE per row rewrote it and its index
-- entries, and the partial index of waiting rows was maintained on every
-- insert and again on every change of state. Every row carries its
-- transaction id; the dispatcher only reads rows of transactions older than
-- the oldest one still running, so a row that commits late is never skipped.
ALTER TABLE notification_deliveries ADD COLUMN tx_id xid8, ADD COLUMN seq bigint;
CREATE SEQUENCE notification_deliveries_seq OWNED BY notification_deliveries.seq;

-- Rows still waiting get a position (this transaction's id, in the order
-- they were waited on); the published, parked and delivered ones get none:
-- the dispatcher never reads them again, and they keep their stored state.
UPDATE notification_deliveries d SET tx_id = pg_current_xact_id(), seq = w.n
FROM (SELECT idempotency_key, row_number() OVER (ORDER BY created_at, idempotency_key) AS n
      FROM notification_deliveries WHERE state IN ('pending', 'invalid')) w
WHERE d.idempotency_key = w.idempotency_key;
SELECT setval('notification_deliveries_seq', COALESCE((SELECT max(seq) FROM notification_deliveries), 0) + 1, false);
ALTER TABLE notification_deliveries
    ALTER COLUMN tx_id SET DEFAULT pg_current_xact_id(),
    ALTER COLUMN seq SET DEFAULT nextval('notification_deliveries_seq');
CREATE INDEX notification_deliveries_commit_order ON notification_deliveries (tx_id, seq);
DROP INDEX notification_deliveries_todo;

-- The last row on a topic. Stored state stays what the projection and the
-- webhook write ('pending', 'invalid', 'delivered'); 'published' and
-- 'parked' are what the cursor passed (notification_states).
CREATE TABLE notification_dispatch_cursor (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    tx_id     xid8   NOT NULL,
    seq       bigint NOT NULL
);
INSERT INTO notification_dispatch_cursor (tx_id, seq) VALUES ('0', 0);

-- Each notification's state as before the cursor: a waiting row the cursor
-- passed is published (or parked, when invalid). Rows without a position
-- (published before this migration) keep the state they were given then.
CREATE VIEW notification_states AS
SELECT d.idempotency_key, d.type, d.organization_id,
       CASE WHEN d.state IN ('pending', 'invalid') AND (d.tx_id, d.seq) <= (c.tx_id, c.seq)
            THEN CASE d.state WHEN 'pending' THEN 'published' ELSE 'parked' END
            ELSE d.state END AS state,
       d.reason, d.delivered_at
FROM notification_deliveries d CROSS JOIN notification_dispatch_cursor c;
