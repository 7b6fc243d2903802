package booking

import (
	"context"
	"time"

	"github.com/example/ledgerly/internal/lock"
)

// Book records a succeeded payment exactly once.
func Book(ctx context.Context, db DB, eventID string) error {
	l, err := lock.Redlock.Acquire(ctx, "payment:"+eventID, 30*time.Second)
	if err != nil {
		return err
	}
	defer l.Release(ctx)
	_, err = db.Exec(ctx, "UPDATE payments SET status = 'BOOKED' WHERE event_id = $1 AND status = 'STATUS_PENDING'", eventID)
	return err
}
