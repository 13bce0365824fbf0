package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

const tokenColumns = sqlrow.TokenColumns

// CreateToken stores t. ErrConflict when the id or the hash exists. The legacy admin
// column is written as scope <> 'owner' (either admin scope), for binaries that predate
// scopes (migration 00003); a scope that is none of the three writes false.
func (s *Store) CreateToken(ctx context.Context, t domain.Token) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO api_tokens (`+tokenColumns+`, admin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Owner, string(t.Scope), t.Hash, t.Note, timeArg(t.CreatedAt), timeArg(t.RevokedAt), timeArg(t.LastUsedAt), t.CanReadAdmin())
	return mapError(err)
}

// TokenByHash finds a token, revoked or not.
func (s *Store) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	t, err := scanToken(s.db.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		// The hash is a credential's fingerprint: it stays out of the message.
		return domain.Token{}, final{fmt.Errorf("mysql: no token with this hash: %w", ports.ErrNotFound)}
	}
	return t, mapError(err)
}

// listOwnerTokensSQL walks api_tokens_owner.
const listOwnerTokensSQL = `SELECT ` + tokenColumns + ` FROM api_tokens WHERE owner = ? ORDER BY created_at, id`

// ListTokens returns the owner's tokens, or every token when owner is "", oldest first.
func (s *Store) ListTokens(ctx context.Context, owner string) ([]domain.Token, error) {
	q, args := listOwnerTokensSQL, []any{owner}
	if owner == "" {
		q, args = sqlrow.ListTokensSQL, nil
	}
	tokens, err := sqlrow.Query(ctx, s.db, scanToken, q, args...)
	return tokens, mapError(err)
}

// RevokeToken marks the token revoked at the store's now; a revoked token keeps its
// first revocation time. clientFoundRows makes RowsAffected count the matched row even
// when nothing changed, so only an unknown id reads as 0.
func (s *Store) RevokeToken(ctx context.Context, id string) error {
	n, err := sqlrow.Affected(s.db.ExecContext(ctx,
		`UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?, UTC_TIMESTAMP(6)) WHERE id = ?`, s.injectedNow(), id))
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return notFound("token", id)
	}
	return nil
}

// TouchToken stamps last_used_at with at unless a use at or after staleBefore is
// recorded; an unknown id matches no row.
func (s *Store) TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`, timeArg(at), id, timeArg(staleBefore))
	return mapError(err)
}

func scanToken(r sqlrow.Scanner) (domain.Token, error) {
	return sqlrow.ScanToken(r, sqlrow.NullTime)
}
