package ports

import (
	"errors"
	"testing"

	"github.com/chronoshq/chronos/domain"
)

// Up to MaxDeleteIDs ids may be deleted at once; more are refused on "ids".
func TestCheckDeleteIDs(t *testing.T) {
	if err := CheckDeleteIDs(make([]string, MaxDeleteIDs)); err != nil {
		t.Errorf("%d ids: %v", MaxDeleteIDs, err)
	}
	var ve *domain.ValidationError
	if err := CheckDeleteIDs(make([]string, MaxDeleteIDs+1)); !errors.As(err, &ve) || ve.Field != "ids" {
		t.Errorf("%d ids: %v, want a ValidationError on ids", MaxDeleteIDs+1, err)
	}
}
