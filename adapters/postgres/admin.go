package postgres

// deleteByIDSQL is ChooseByIDs: it deletes the named alarms, found in alarms_pkey,
// whatever their status or lease, and returns the ids it deleted (unknown ids are not
// among them); deleteEventsOf deletes their events after, as retention does. A row
// locked by a claim, an Apply or a Mutate is waited for; the worker whose lease goes
// with the row finds its outcome stale (Apply finds no row).
const deleteByIDSQL = `DELETE FROM alarms WHERE id = ANY($1::text[]) RETURNING id`

func chooseByIDs(ids []string) (string, []any) { return deleteByIDSQL, []any{ids} }
