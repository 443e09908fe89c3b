-- The design service's write-side registry: one row per object (project,
-- design, uploaded image, export), written in the transaction of the
-- command that creates it (live = false once deleted; an export's row
-- before its job is requested). Commands check in it, under their
-- organization's lock taken shared, that an object and its project are live
-- in the workspace named by the path, and that the images a design names are
-- the workspace's; an export's worker checks its export is still there
-- before and after it stores the file. organizations.data.erase deletes the
-- organization's rows under that lock taken exclusively, so every command
-- and worker afterwards finds its objects missing, and the read models
-- write only objects the registry still knows (a rebuild from the log
-- brings nothing erased back).
CREATE TABLE design_objects (
    object_id       text        PRIMARY KEY,
    organization_id text        NOT NULL,
    workspace_id    text        NOT NULL,
    kind            text        NOT NULL CHECK (kind IN ('project', 'design', 'asset', 'export')),
    project_id      text,
    design_id       text,
    object_key      text,       -- an image's or an export's bytes in the object store
    live            boolean     NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX design_objects_project ON design_objects (project_id, kind) WHERE live;
CREATE INDEX design_objects_organization ON design_objects (organization_id);

-- Object-store keys whose bytes are to be deleted: written in the
-- transaction that forgets them (an erasure), drained right after it
-- commits and by the sweeper, so bytes are never deleted before their
-- record and never left behind after a crash.
CREATE TABLE design_object_deletions (
    object_key      text        PRIMARY KEY,
    organization_id text        NOT NULL,
    requested_at    timestamptz NOT NULL DEFAULT now()
);
