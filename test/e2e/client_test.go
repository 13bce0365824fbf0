package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// Client talks to a node's HTTP API with one token.
type Client struct {
	t     *testing.T
	token string
	http  *http.Client
}

func NewClient(t *testing.T, token string) *Client {
	return &Client{t: t, token: token, http: &http.Client{Timeout: 10 * time.Second}}
}

// Alarm is the part of the API's alarm view the tests read.
type Alarm struct {
	ID           string    `json:"id"`
	Status       string    `json:"status"`
	FireAt       time.Time `json:"fire_at"`
	ScheduledFor time.Time `json:"scheduled_for"`
	FailureCount int       `json:"failure_count"`
	LastError    string    `json:"last_error"`
	Delivery     string    `json:"delivery"`
	Kind         string    `json:"kind"`
}

// Create posts an alarm (body is the JSON request) to node and returns it.
func (c *Client) Create(n *Node, body string) Alarm {
	c.t.Helper()
	var out struct {
		Alarm Alarm `json:"alarm"`
	}
	status, raw := c.do(n, http.MethodPost, "/v1/alarms", body, &out)
	if status != http.StatusCreated && status != http.StatusOK {
		c.t.Fatalf("create on %s: HTTP %d: %s", n.Name, status, raw)
	}
	return out.Alarm
}

// Get reads one alarm.
func (c *Client) Get(n *Node, id string) Alarm {
	c.t.Helper()
	var out struct {
		Alarm Alarm `json:"alarm"`
	}
	status, raw := c.do(n, http.MethodGet, "/v1/alarms/"+id, "", &out)
	if status != http.StatusOK {
		c.t.Fatalf("get %s on %s: HTTP %d: %s", id, n.Name, status, raw)
	}
	return out.Alarm
}

// TryCreate is Create for other goroutines than the test's: it returns the error
// instead of failing the test.
func (c *Client) TryCreate(n *Node, body string) (Alarm, error) {
	req, err := http.NewRequest(http.MethodPost, "http://"+n.Addr+"/v1/alarms", bytes.NewBufferString(body))
	if err != nil {
		return Alarm{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return Alarm{}, fmt.Errorf("create on %s: %w", n.Name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return Alarm{}, fmt.Errorf("create on %s: HTTP %d: %s", n.Name, resp.StatusCode, raw)
	}
	var out struct {
		Alarm Alarm `json:"alarm"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return Alarm{}, fmt.Errorf("create on %s: decoding %s: %w", n.Name, raw, err)
	}
	return out.Alarm, nil
}

// Event is one row of an alarm's history as the API shows it.
type Event struct {
	Type          string    `json:"type"`
	At            time.Time `json:"at"`
	Attempt       int       `json:"attempt"`
	ScheduledFor  time.Time `json:"scheduled_for"`
	OccurrenceKey string    `json:"occurrence_key"`
	Worker        string    `json:"worker"`
	Message       string    `json:"message"`
}

// Events reads an alarm's history, oldest first.
func (c *Client) Events(n *Node, id string) []Event {
	c.t.Helper()
	var out struct {
		Events []Event `json:"events"`
	}
	status, raw := c.do(n, http.MethodGet, "/v1/alarms/"+id+"/events", "", &out)
	if status != http.StatusOK {
		c.t.Fatalf("events of %s on %s: HTTP %d: %s", id, n.Name, status, raw)
	}
	return out.Events
}

// countEvents is how many events of a history have type typ.
func countEvents[T ~string](evs []Event, typ T) int {
	n := 0
	for _, e := range evs {
		if e.Type == string(typ) {
			n++
		}
	}
	return n
}

func (c *Client) do(n *Node, method, path, body string, out any) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, "http://"+n.Addr+path, bytes.NewBufferString(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s on %s: %v", method, path, n.Name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s %s: decoding %s: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode, raw
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return string(b)
}
