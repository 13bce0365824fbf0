package sqlite

import (
	"context"

	"github.com/chronoshq/chronos/domain"
)

// CreateToken stores t; a zero CreatedAt is stamped with the store's now.
func (s *Store) CreateToken(ctx context.Context, t domain.Token) error {
	if t.CreatedAt.IsZero() {
		t.CreatedAt = s.now()
	}
	return s.Engine.CreateToken(ctx, t)
}
