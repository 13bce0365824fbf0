package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

const tokenColumns = sqlrow.TokenColumns

// createTokenSQL also writes the admin flag that the scope replaced (migration 00004),
// as scope <> 'owner', so the two columns never disagree.
const createTokenSQL = `INSERT INTO api_tokens (` + tokenColumns + `, admin)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $3 <> 'owner')`

// CreateToken stores t. ErrConflict when the id or the hash exists.
func (s *Store) CreateToken(ctx context.Context, t domain.Token) error {
	_, err := s.pool.Exec(ctx, createTokenSQL,
		t.ID, t.Owner, string(t.Scope), t.Hash, t.Note, timeArg(t.CreatedAt), timeArg(t.RevokedAt), timeArg(t.LastUsedAt))
	return mapError(err)
}

// TokenByHash finds a token, revoked or not.
func (s *Store) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		// The hash is not echoed: error text ends up in logs.
		return domain.Token{}, fmt.Errorf("postgres: no token has this hash: %w", ports.ErrNotFound)
	}
	return t, mapError(err)
}

// listOwnerTokensSQL walks api_tokens_owner.
const listOwnerTokensSQL = `SELECT ` + tokenColumns + ` FROM api_tokens WHERE owner = $1 ORDER BY created_at, id`

// ListTokens returns the owner's tokens, or every token when owner is "", oldest first.
func (s *Store) ListTokens(ctx context.Context, owner string) ([]domain.Token, error) {
	q, args := listOwnerTokensSQL, []any{owner}
	if owner == "" {
		q, args = sqlrow.ListTokensSQL, nil
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, mapError(err)
	}
	defer rows.Close()
	tokens, err := sqlrow.All(rows, 0, scanToken)
	return tokens, mapError(err)
}

// RevokeToken marks a token revoked at the store's now; a revoked token keeps the time
// it was first revoked.
func (s *Store) RevokeToken(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, $2::timestamptz, now())
		WHERE id = $1`, id, s.nowArg())
	if err != nil {
		return mapError(err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("token", id)
	}
	return nil
}

// TouchToken stamps last_used_at with at unless a use at or after staleBefore is
// recorded; an unknown id matches no row.
func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE api_tokens SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)`, id, timeArg(at), timeArg(staleBefore))
	return mapError(err)
}

func scanToken(row sqlrow.Scanner) (domain.Token, error) {
	return sqlrow.ScanToken(row, tsTime)
}
