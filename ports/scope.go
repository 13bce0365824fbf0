package ports

// Scope is whose alarms a read or change may reach: one owner's (the owner API, where
// another owner's alarm is as if unknown) or every owner's (the operator's). It is
// explicit on purpose: no value of an owner string means "every owner", so an owner id
// that comes out empty by mistake reaches nothing, never everything. The zero Scope,
// like OwnedBy(""), sees no alarm at all.
type Scope struct {
	owner    string
	anyOwner bool
}

// AnyOwner reaches every owner's alarms: the operator's scope, behind an admin token.
var AnyOwner = Scope{anyOwner: true}

// OwnedBy reaches the owner's alarms only. OwnedBy("") reaches none.
func OwnedBy(owner string) Scope { return Scope{owner: owner} }

// Sees reports whether an alarm of owner is within s.
func (s Scope) Sees(owner string) bool { return s.anyOwner || (s.owner != "" && owner == s.owner) }

// Owner is the one owner s is limited to; "" for AnyOwner, and for a scope that sees
// nothing (check None first).
func (s Scope) Owner() string { return s.owner }

// IsAnyOwner reports whether s is AnyOwner.
func (s Scope) IsAnyOwner() bool { return s.anyOwner }

// None reports whether s sees no alarm (the zero Scope, OwnedBy("")): a store answers
// such a list with an empty page and such a read or change with ErrNotFound.
func (s Scope) None() bool { return !s.anyOwner && s.owner == "" }
