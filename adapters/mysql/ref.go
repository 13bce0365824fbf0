package mysql

// alarmRef names the alarm a by-id call reads or changes: the owner's alarm with this id
// (the owner API: another owner's id reads as unknown), or the alarm with this id
// whoever owns it (the admin API, behind an admin-scoped token). Get, Events and Mutate
// and their admin twins run one implementation each, differing only by this condition.
type alarmRef struct {
	id, owner string
	anyOwner  bool
}

// ownedBy is the owner's alarm id.
func ownedBy(owner, id string) alarmRef { return alarmRef{id: id, owner: owner} }

// anyOwners is the alarm id, whoever owns it.
func anyOwners(id string) alarmRef { return alarmRef{id: id, anyOwner: true} }

// where is the condition on the alarms table (prefix "" or an alias with its dot, "a.")
// and its arguments.
func (r alarmRef) where(prefix string) (string, []any) {
	if r.anyOwner {
		return prefix + `id = ?`, []any{r.id}
	}
	return prefix + `id = ? AND ` + prefix + `owner = ?`, []any{r.id, r.owner}
}
