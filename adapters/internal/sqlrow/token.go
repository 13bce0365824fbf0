package sqlrow

import (
	"time"

	"github.com/chronoshq/chronos/domain"
)

// TokenColumns is the column list every token read selects, in ScanToken's order. The
// old admin column is written (as scope <> 'owner', for binaries that predate scopes),
// never read.
const TokenColumns = `id, owner, scope, hash, note, created_at, revoked_at, last_used_at`

// ScanToken reads one row of TokenColumns; toTime is as for NewAlarms.
func ScanToken[T any](r Scanner, toTime func(T) time.Time) (domain.Token, error) {
	var (
		tok                    domain.Token
		scope                  string
		created, revoked, used T
	)
	if err := r.Scan(&tok.ID, &tok.Owner, &scope, &tok.Hash, &tok.Note, &created, &revoked, &used); err != nil {
		return domain.Token{}, err
	}
	tok.Scope, tok.CreatedAt, tok.RevokedAt, tok.LastUsedAt = domain.Scope(scope), toTime(created), toTime(revoked), toTime(used)
	return tok, nil
}
