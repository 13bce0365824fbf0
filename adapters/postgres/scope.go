package postgres

// ownerScope is whose alarms a by-id read or change may reach: one owner's (the owner
// API) or every owner's (the admin API). Both find the alarm by id alone and check the
// owner on the row (see getSQL), so the owner and admin variants of Get, Events and
// Mutate are one implementation each, differing only in this check.
type ownerScope struct {
	owner    string
	anyOwner bool
}

// ownedBy is the owner API's scope: another owner's alarm is as if unknown.
func ownedBy(owner string) ownerScope { return ownerScope{owner: owner} }

// everyOwner is the admin API's scope.
var everyOwner = ownerScope{anyOwner: true}

// sees reports whether an alarm of alarmOwner is in the scope.
func (sc ownerScope) sees(alarmOwner string) bool {
	return sc.anyOwner || alarmOwner == sc.owner
}
