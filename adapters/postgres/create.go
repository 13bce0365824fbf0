package postgres

// createSQL inserts an alarm (sqlstore.Statements.InsertAlarm; its created event is not
// stored: domain.CreatedEvent). A second alarm with the owner's idempotency key inserts
// nothing (the arbiter is the partial unique index, so keyless alarms never conflict)
// and returns no row; an id collision is a unique violation.
const createSQL = `
INSERT INTO alarms (` + alarmColumns + `)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
        $24, $25, $26, $27, $28, $29, $30, $31)
ON CONFLICT (owner, idempotency_key) WHERE idempotency_key <> '' DO NOTHING
RETURNING ` + alarmColumns

// byIdempotencyKeySQL repeats the partial index's predicate (the key is not empty) so
// that the store's generic plans (see genericPlans) can prove the index applies; from
// "idempotency_key = $2" alone they cannot, and would read every alarm of the owner. It
// is only ever asked for a non-empty key.
const byIdempotencyKeySQL = `SELECT ` + alarmColumns + ` FROM alarms
	WHERE owner = $1 AND idempotency_key = $2 AND idempotency_key <> ''`

// payloadArg is the payload as raw JSON bytes for the json column. A []byte (not a
// json.RawMessage, which is a json.Marshaler) is sent exactly as given.
func payloadArg(p []byte) []byte {
	if len(p) == 0 {
		return []byte("null")
	}
	return p
}
