-- A batch moves its partition's checkpoint only from where its runner last
-- left it. The runner remembers the versions of the streams it applied while
-- it holds a partition instead of reading them for every batch; another
-- consumer that applied the partition meanwhile (a rebalance overlapping a
-- slow batch, a commit whose answer was lost) moved the checkpoint, and the
-- batch, sequenced against what the runner remembered, must not commit. The
-- runner's checkpoint statement calls this when it moved no row: SQLSTATE
-- PJ409 rolls the batch back.
CREATE FUNCTION proj_checkpoint_moved(what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'checkpoint %: moved by another consumer', what USING ERRCODE = 'PJ409';
END $$;
