-- Stream heads are rewritten by every command. With free room on each page
-- the update stays on the page (a HOT update: no index entry, less WAL).
ALTER TABLE es_streams SET (fillfactor = 50);
