package contacts

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// The contacts' write model is one row per contact in contacts_records
// (migrations/001), read and locked by a command's Prepare and written by
// its decision, in the command's transaction.

// contactID parses a contact id from a path: anything that is not one is
// a contact that does not exist.
func contactID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, errs.NotFound("contact")
	}
	return id, nil
}

// lockRow is the row lock a command takes on the contact it reads.
type lockRow string

const (
	forUpdate lockRow = "FOR UPDATE" // the command changes the contact
	forShare  lockRow = "FOR SHARE"  // it needs the contact to stay as it is (a note, a file on it)
)

// loadContact reads one contact of the organization (found false when
// there is none, or it is another organization's), locking its row.
func loadContact(ctx context.Context, tx eventstore.Tx, org string, id uuid.UUID, lock lockRow) (domain.Contact, bool, error) {
	var raw []byte
	err := tx.QueryRow(ctx, `SELECT state FROM contacts_records WHERE contact_id=$1 AND organization_id=$2 `+string(lock), id, org).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Contact{}, false, nil
	}
	if err != nil {
		return domain.Contact{}, false, err
	}
	var c domain.Contact
	if err := json.Unmarshal(raw, &c); err != nil {
		return domain.Contact{}, false, err
	}
	return c, true, nil
}

// scanContacts reads state rows.
func scanContacts(rows pgx.Rows) ([]domain.Contact, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Contact, error) {
		var raw []byte
		var c domain.Contact
		if err := r.Scan(&raw); err != nil {
			return c, err
		}
		return c, json.Unmarshal(raw, &c)
	})
}

// matchCandidates are the live contacts of the organization holding any of
// the keys, oldest first; with lock, their rows are locked (in id order, so
// two commands never lock the same rows in opposite orders).
func matchCandidates(ctx context.Context, q eventstore.Querier, org string, emails, names []string, lock bool) ([]domain.Contact, error) {
	sql := `SELECT state FROM contacts_records WHERE organization_id=$1 AND NOT deleted
		AND ((email_key <> '' AND email_key = ANY($2)) OR (name_key <> '' AND name_key = ANY($3))) ORDER BY contact_id`
	if lock {
		sql += ` FOR UPDATE`
	}
	rows, err := q.Query(ctx, sql, org, emails, names)
	if err != nil {
		return nil, err
	}
	return scanContacts(rows)
}

// contactsByID reads contacts of the organization by id, locked for update
// (deleted ones included: an undo judges them too).
func contactsByID(ctx context.Context, tx eventstore.Tx, org string, ids []string) (map[string]domain.Contact, error) {
	rows, err := tx.Query(ctx, `SELECT state FROM contacts_records WHERE organization_id=$1 AND contact_id = ANY($2::uuid[])
		ORDER BY contact_id FOR UPDATE`, org, ids)
	if err != nil {
		return nil, err
	}
	list, err := scanContacts(rows)
	if err != nil {
		return nil, err
	}
	out := make(map[string]domain.Contact, len(list))
	for _, c := range list {
		out[c.ContactID] = c
	}
	return out, nil
}

// keysOf are the match keys of rows: emails and names, each once.
func keysOf(rows []domain.Row) (emails, names []string) {
	seen := map[string]bool{}
	for _, r := range rows {
		kind, key := r.Fields.Key()
		if key == "" || seen[kind+key] {
			continue
		}
		seen[kind+key] = true
		if kind == "email" {
			emails = append(emails, key)
		} else {
			names = append(names, key)
		}
	}
	return emails, names
}

// saveContacts writes contacts' rows (inserted or replaced) in one
// statement, however many there are.
func saveContacts(org string, contacts ...domain.Contact) (eventstore.Write, error) {
	n := len(contacts)
	ids, revs, deleted := make([]string, n), make([]int32, n), make([]bool, n)
	emails, names, states := make([]string, n), make([]string, n), make([]string, n)
	for i, c := range contacts {
		raw, err := json.Marshal(c)
		if err != nil {
			return eventstore.Write{}, err
		}
		ids[i], revs[i], deleted[i], states[i] = c.ContactID, int32(c.Revision), c.Deleted, string(raw)
		emails[i], names[i] = c.Keys()
	}
	return eventstore.Write{SQL: `INSERT INTO contacts_records (contact_id, organization_id, revision, deleted, email_key, name_key, state)
		SELECT id, $1, rev, del, ek, nk, st::jsonb FROM unnest($2::uuid[], $3::int[], $4::boolean[], $5::text[], $6::text[], $7::text[])
			AS t(id, rev, del, ek, nk, st)
		ON CONFLICT (contact_id) DO UPDATE SET revision=EXCLUDED.revision, deleted=EXCLUDED.deleted,
			email_key=EXCLUDED.email_key, name_key=EXCLUDED.name_key, state=EXCLUDED.state`,
		Args: []any{org, ids, revs, deleted, emails, names, states}}, nil
}

// removeContacts deletes contacts' rows for good (an undo removing what an
// import created).
func removeContacts(org string, ids []string) eventstore.Write {
	return eventstore.Write{SQL: `DELETE FROM contacts_records WHERE organization_id=$1 AND contact_id = ANY($2::uuid[])`,
		Args: []any{org, ids}}
}

// changed lists the contacts of changes.
func changed(changes ...[]domain.Change) []domain.Contact {
	var out []domain.Contact
	for _, list := range changes {
		for _, c := range list {
			out = append(out, c.Contact)
		}
	}
	return out
}

// missing makes every "not found" of a command the same answer: the event
// store's for a stream of another organization ("contacts.contact not
// found") and the domain's for an id that exists nowhere, so the answer
// never tells another organization's id from a missing one.
func missing(err error, what string) error {
	if errs.KindOf(err) == errs.KindNotFound {
		return errs.NotFound(what)
	}
	return err
}
