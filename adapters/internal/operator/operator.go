// Package operator declares the operator use cases (*admin.Admin, *admin.Tokens) that the
// admin API (httpapi) and the dashboard (webui) both drive, so the two adapters state
// them once and cannot drift apart. Each interface is what one group of handlers calls;
// Admin gathers them for the constructors. An adapter may not import app, nor another
// adapter; both may import this.
package operator

import (
	"context"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// In every interface below, by is the id of the admin token making a change (the API's
// bearer token, the dashboard session's token); the use case records it.

// AlarmReader reads any owner's alarms and their history.
type AlarmReader interface {
	List(ctx context.Context, f ports.ListFilter) ([]domain.Alarm, string, error)
	Get(ctx context.Context, id string) (domain.Alarm, error)
	Events(ctx context.Context, id string, limit int) ([]domain.Event, error)
	// Attempts is a page of the alarm's attempt log, newest first.
	Attempts(ctx context.Context, id string, limit int, cursor string) ([]domain.Event, string, error)
}

// AlarmActions are an operator's changes to one alarm of any owner.
type AlarmActions interface {
	Retry(ctx context.Context, id, by string) (domain.Alarm, error)
	Cancel(ctx context.Context, id, by string) (domain.Alarm, error)
	Delete(ctx context.Context, id, by string) (ports.Deleted, error)
}

// BulkActions apply one action to every alarm a filter matches, up to limit; BulkDryRun
// only counts them.
type BulkActions interface {
	Bulk(ctx context.Context, action domain.BulkAction, f ports.ListFilter, limit int, by string) (domain.BulkResult, error)
	BulkDryRun(ctx context.Context, action domain.BulkAction, f ports.ListFilter, limit int) (domain.BulkResult, error)
}

// Cluster reads the state of the cluster: the alarms' counts and the nodes.
type Cluster interface {
	Overview(ctx context.Context) (domain.Overview, error)
	Workers(ctx context.Context) ([]domain.WorkerHealth, error)
}

// DispatchSwitch reads, pauses and resumes the cluster's dispatching.
type DispatchSwitch interface {
	Dispatch(ctx context.Context) (domain.DispatchState, error)
	PauseDispatch(ctx context.Context, by string) (domain.DispatchState, error)
	ResumeDispatch(ctx context.Context, by string) (domain.DispatchState, error)
}

// Retention reads the retention's state and runs a pass on request.
type Retention interface {
	Retention(ctx context.Context) (domain.RetentionStatus, error)
	RunRetention(ctx context.Context, by string) (domain.RetentionRun, error)
}

// Backups copies the store to a new file the node names in its backup directory
// (ports.ErrUnsupported: not a SQLite store, or no directory; ports.ErrBusy: one is
// being written). BackupSetup says beforehand whether it can.
type Backups interface {
	Backup(ctx context.Context, by string) (domain.Backup, error)
	BackupSetup() domain.BackupSetup
}

// Admin is every operator use case (*admin.Admin), as the adapters' constructors take
// it; their handlers each hold only the part they call.
type Admin interface {
	AlarmReader
	AlarmActions
	BulkActions
	Cluster
	DispatchSwitch
	Retention
	Backups
}

// Tokens is the set of token use cases an admin drives (*admin.Tokens). Issue returns the
// secret in plain text, the only time it exists; List and Revoke never see one.
type Tokens interface {
	// Issue makes a token for owner with scope and note (both optional: "" is an owner
	// token without a note); a *domain.ValidationError names the field it refuses.
	Issue(ctx context.Context, owner string, scope domain.Scope, note string) (string, domain.Token, error)
	// List returns the owner's tokens, or every one when owner is "", oldest first.
	List(ctx context.Context, owner string) ([]domain.Token, error)
	// Revoke disables the token with this id; ports.ErrNotFound when there is none.
	Revoke(ctx context.Context, id string) error
}
