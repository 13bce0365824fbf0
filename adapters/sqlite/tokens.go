package sqlite

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

// tokenColumns are what scanToken reads. The old admin column is written, never read
// (see migration 00004).
const tokenColumns = sqlrow.TokenColumns

// CreateToken stores t; a zero CreatedAt is stamped with the store's now. The old admin
// column is scope <> 'owner', for a binary that predates scopes.
func (s *Store) CreateToken(ctx context.Context, t domain.Token) error {
	if t.CreatedAt.IsZero() {
		t.CreatedAt = s.now()
	}
	_, err := s.writer.ExecContext(ctx, `INSERT INTO api_tokens (`+tokenColumns+`, admin)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?3 <> 'owner')`,
		t.ID, t.Owner, string(t.Scope), t.Hash, t.Note, toDB(trunc(t.CreatedAt)), toDB(trunc(t.RevokedAt)), toDB(trunc(t.LastUsedAt)))
	return mapError(err)
}

// TokenByHash finds a token by the hash of its secret, revoked or not.
func (s *Store) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	row := s.reader.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens WHERE hash = ?`, hash)
	t, err := scanToken(row)
	if errors.Is(err, sql.ErrNoRows) {
		// The hash is a credential's fingerprint: keep it out of error text.
		return domain.Token{}, fmt.Errorf("sqlite: token with this hash: %w", ports.ErrNotFound)
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
	tokens, err := sqlrow.Query(ctx, s.reader, scanToken, q, args...)
	return tokens, mapError(err)
}

// RevokeToken stamps revoked_at with the store's now, keeping an earlier revocation.
func (s *Store) RevokeToken(ctx context.Context, id string) error {
	// SQLite counts every row the WHERE matched, changed or not.
	n, err := sqlrow.Affected(s.writer.ExecContext(ctx,
		`UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, toDB(s.now()), id))
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
	_, err := s.writer.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`, toDB(trunc(at)), id, toDB(trunc(staleBefore)))
	return mapError(err)
}

func scanToken(row sqlrow.Scanner) (domain.Token, error) {
	return sqlrow.ScanToken(row, fromDB)
}
