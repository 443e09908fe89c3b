-- Which of an organization's connections of a provider its calls use is an
-- explicit choice (connections.choose; a connection created while none is
-- in use is chosen at once), no longer the newest: of the active
-- connections, the one chosen last. Connections recorded before choices
-- existed count as chosen when they were created (their events carry no
-- choice: domain ConnectionV1.Chosen), so the one in use stays the one in
-- use: the newest active one.
ALTER TABLE gateway_connection_index ADD COLUMN chosen_at timestamptz;
UPDATE gateway_connection_index SET chosen_at = created_at;
DROP INDEX gateway_connection_index_active;
CREATE INDEX gateway_connection_index_chosen ON gateway_connection_index (organization_id, provider, chosen_at DESC)
    WHERE status = 'active' AND chosen_at IS NOT NULL;
