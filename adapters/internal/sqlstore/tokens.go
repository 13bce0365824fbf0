package sqlstore

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
)

// CreateToken stores t. ErrConflict when the id or the hash exists.
func (e *Engine[T]) CreateToken(ctx context.Context, t domain.Token) error {
	_, err := e.Write.Exec(ctx, e.SQL.CreateToken, t.ID, t.Owner, string(t.Scope), t.Hash, t.Note,
		e.TimeArg(t.CreatedAt), e.TimeArg(t.RevokedAt), e.TimeArg(t.LastUsedAt), t.CanReadAdmin())
	return e.mapError(err)
}

// TokenByHash finds a token by the hash of its secret, revoked or not.
func (e *Engine[T]) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	t, err := one(ctx, e.Read, e.scanToken, e.notFoundByHash("token"), e.SQL.TokenByHash, hash)
	return t, e.mapError(err)
}

// ListTokens returns the owner's tokens, or every token when owner is "", oldest first.
func (e *Engine[T]) ListTokens(ctx context.Context, owner string) ([]domain.Token, error) {
	q, args := e.SQL.ListOwnerTokens, []any{owner}
	if owner == "" {
		q, args = e.SQL.ListTokens, nil
	}
	tokens, err := List(ctx, e.Read, e.scanToken, q, args...)
	return tokens, e.mapError(err)
}

// RevokeToken stamps revoked_at with the store's now, keeping an earlier revocation.
// Every store counts the row the WHERE matched, changed or not, so only an unknown id
// reads as 0.
func (e *Engine[T]) RevokeToken(ctx context.Context, id string) error {
	n, err := e.Write.Exec(ctx, e.SQL.RevokeToken, e.NowArg(), id)
	if err != nil {
		return e.mapError(err)
	}
	if n == 0 {
		return e.notFound("token", id)
	}
	return nil
}

// TouchToken stamps last_used_at with at unless a use at or after staleBefore is
// recorded; an unknown id matches no row.
func (e *Engine[T]) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	_, err := e.Write.Exec(ctx, e.SQL.TouchToken, e.TimeArg(at), id, e.TimeArg(staleBefore))
	return e.mapError(err)
}

func (e *Engine[T]) scanToken(row sqlrow.Scanner) (domain.Token, error) {
	return sqlrow.ScanToken(row, e.ToTime)
}
