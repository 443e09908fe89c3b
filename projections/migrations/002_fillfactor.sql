-- Checkpoints and stream versions are rewritten by every batch; free room on
-- each page keeps those updates on the page (HOT: no index entry, less WAL).
ALTER TABLE proj_checkpoints SET (fillfactor = 50);
ALTER TABLE proj_stream_versions SET (fillfactor = 50);
