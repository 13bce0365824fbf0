package sqlrow

// The statements that read a whole table in the order ports promises. They take no
// arguments, so their text is the same on every database and every SQL store runs them
// as they are.

// ListTokensSQL reads every token, oldest first (ports.TokenStore.ListTokens); the id
// orders tokens created in the same instant.
const ListTokensSQL = `SELECT ` + TokenColumns + ` FROM api_tokens ORDER BY created_at, id`

// ListWorkersSQL reads every registered worker, oldest first
// (ports.WorkerStore.ListWorkers); the id orders workers started in the same instant.
const ListWorkersSQL = `SELECT ` + WorkerColumns + ` FROM workers ORDER BY started_at, id`

// ListAllEndpointsSQL reads every owner's endpoints by owner, then name
// (ports.EndpointStore.ListEndpoints with no owner), walking the primary key.
const ListAllEndpointsSQL = `SELECT ` + EndpointColumns + ` FROM endpoints ORDER BY owner, name`
