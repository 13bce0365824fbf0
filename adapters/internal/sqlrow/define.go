package sqlrow

// DefineSet is the SET list an update's new definition (domain.Transition.Define)
// writes, in DefineArgs' order, with "?" placeholders; the row's id follows them. Only
// an owner's update carries a definition, through Mutate, never Apply: it is a statement
// of its own in Mutate's transaction, which keeps the hot path's statements as they were.
const DefineSet = `label = ?, cron_expr = ?, timezone = ?, wake_message = ?, payload = ?, max_failures = ?, series = ?`
