package sqltext

import (
	"testing"

	"github.com/chronoshq/chronos/domain"
)

func TestPlaceholders(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Placeholders(1), "?"},
		{Placeholders(3), "?, ?, ?"},
		{ValuesRows(1, 2), "(?, ?)"},
		{ValuesRows(2, 3), "(?, ?, ?), (?, ?, ?)"},
		{StatusList(domain.QuotaStatuses), "'active', 'paused'"},
		{StatusList([]domain.Status{"it's"}), "'it''s'"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
