-- Settles of concurrent calls share one transaction (a group commit): their
-- costs and releases are summed per budget row in Go and applied here, one
-- statement for the whole transaction, one row at a time in the order the
-- arrays come in: (organization, scope, month), the order reservations lock
-- rows in, so no two transactions wait on each other in a cycle.
-- p_release is what the calls had reserved against the row (a hard cap's
-- scope), moved out of reserved; a row is inserted only for a scope that
-- reserved nothing (a reservation inserts its rows first), so a new row
-- starts at reserved 0, as the single settle's upsert did.
CREATE FUNCTION gateway_settle_budgets(p_orgs text[], p_scopes text[], p_months text[], p_settled bigint[], p_release bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_orgs, 1), 0) LOOP
        INSERT INTO gateway_budgets (organization_id, scope, month, settled, reserved)
            VALUES (p_orgs[i], p_scopes[i], p_months[i], p_settled[i], 0)
            ON CONFLICT (organization_id, scope, month) DO UPDATE
            SET settled = gateway_budgets.settled + EXCLUDED.settled, reserved = gateway_budgets.reserved - p_release[i];
    END LOOP;
END
$$;
