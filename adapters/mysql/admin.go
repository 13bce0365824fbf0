package mysql

// chooseByIDs is ChooseByIDs, for DeleteAlarms in one READ COMMITTED transaction: a
// locking read of the ids that exist (waiting for a claim or an Apply that holds one),
// then retention's deletion of exactly those (deleteWithEvents).
func chooseByIDs(ids []string) (string, []any) {
	return `SELECT id FROM alarms WHERE id IN (` + placeholders(len(ids)) + `) FOR UPDATE`, idArgs(ids)
}

// idArgs are ids as the arguments of an IN list.
func idArgs(ids []string) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args
}
