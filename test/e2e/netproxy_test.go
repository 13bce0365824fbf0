package e2e

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// NetProxy is a TCP proxy on a loopback port between nodes and their database that can
// slow, reset and blackhole the connections through it.
//
// A blackhole is a network path that stops carrying packets: every connection open
// while it lasts is lost for good, on the node's side as when a firewall or NAT in the
// path forgets it. Bytes are read and dropped, nothing reaches the other side and no FIN
// or RST tells the node: a statement sent on such a connection never gets an answer, so
// only the node's own deadlines can free it. Connections opened during the blackhole are
// accepted (the node's connect succeeds) and are just as dead. When the blackhole lifts,
// the database's side of each lost connection is closed, standing for the server's
// keepalive finding its client gone (which would take minutes), so the server ends
// those sessions and rolls back their transactions; the node's side stays silent until
// the node closes it. New connections work again at once.
type NetProxy struct {
	ln     net.Listener
	target string

	latency atomic.Int64 // added to every chunk in each direction, in nanoseconds
	resets  atomic.Int64 // connections reset so far

	mu    sync.Mutex
	black bool
	conns map[*proxyConn]struct{}
	wg    sync.WaitGroup
}

// proxyConn is one proxied connection: the node's side and the database's.
type proxyConn struct {
	p         *NetProxy
	client    *net.TCPConn
	upstream  *net.TCPConn // nil when born in a blackhole: it never reached the database
	dead      atomic.Bool  // lost in a blackhole: nothing is forwarded any more
	closeOnce sync.Once
	upClosed  sync.Once
}

// NewNetProxy listens on a free loopback port and forwards every connection to target
// (host:port) until the test ends.
func NewNetProxy(t *testing.T, target string) *NetProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &NetProxy{ln: ln, target: target, conns: map[*proxyConn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is the host:port nodes connect to.
func (p *NetProxy) Addr() string { return p.ln.Addr().String() }

// SetLatency delays every chunk of bytes by d in each direction (a round trip gains
// 2d), from the next chunk read on; 0 forwards at once again.
func (p *NetProxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// Resets is how many connections ResetAll has reset so far.
func (p *NetProxy) Resets() int64 { return p.resets.Load() }

// ResetAll resets every open connection on both sides (RST, not FIN), as a firewall or
// load balancer dropping its state does; it returns how many it reset.
func (p *NetProxy) ResetAll() int {
	p.mu.Lock()
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		if !c.dead.Load() {
			conns = append(conns, c)
		}
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.reset()
	}
	p.resets.Add(int64(len(conns)))
	return len(conns)
}

// Blackhole starts a blackhole: every open connection is lost, and so is every
// connection opened until Heal.
func (p *NetProxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.black = true
	for c := range p.conns {
		c.dead.Store(true)
	}
}

// Heal ends the blackhole: the database's side of every lost connection is closed, new
// connections work. It returns how many connections were lost.
func (p *NetProxy) Heal() int {
	p.mu.Lock()
	p.black = false
	var lost []*proxyConn
	for c := range p.conns {
		if c.dead.Load() {
			lost = append(lost, c)
		}
	}
	p.mu.Unlock()
	for _, c := range lost {
		c.closeUpstream()
	}
	return len(lost)
}

func (p *NetProxy) accept() {
	defer p.wg.Done()
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return // closed at the end of the test
		}
		p.wg.Add(1)
		go p.serve(conn.(*net.TCPConn))
	}
}

// serve dials the database for a new connection (unless it was born in a blackhole:
// then it goes nowhere) and pumps both directions until both sides are done.
func (p *NetProxy) serve(client *net.TCPConn) {
	defer p.wg.Done()
	c := &proxyConn{p: p, client: client}
	p.mu.Lock()
	black := p.black
	p.mu.Unlock()
	if !black {
		up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			client.Close()
			return
		}
		c.upstream = up.(*net.TCPConn)
	}
	// Registered once upstream is set, so that Blackhole, Heal and ResetAll, which
	// find it under mu, see it; a blackhole that began during the dial claims it too.
	p.mu.Lock()
	if p.black {
		c.dead.Store(true)
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	}()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.pump(c.client, c.upstream) // node → database
	}()
	if c.upstream != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.pump(c.upstream, c.client) // database → node
		}()
	}
	wg.Wait()
}

// chunk is bytes read from one side, to be written to the other at due.
type chunk struct {
	data []byte
	due  time.Time
}

// pump copies from src to dst (nil: nowhere), with the proxy's latency, dropping
// everything once the connection is dead. When src ends, dst is closed, unless the
// connection is dead: a lost connection's end reaches nobody.
func (c *proxyConn) pump(src, dst *net.TCPConn) {
	queue := make(chan chunk, 256)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for ch := range queue {
			if d := time.Until(ch.due); d > 0 {
				time.Sleep(d)
			}
			if c.dead.Load() || dst == nil {
				continue
			}
			if _, err := dst.Write(ch.data); err != nil {
				// The other side is gone; keep draining so the reader is never blocked.
				continue
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !c.dead.Load() {
			data := append([]byte(nil), buf[:n]...)
			queue <- chunk{data: data, due: time.Now().Add(time.Duration(c.p.latency.Load()))}
		}
		if err != nil {
			break // EOF, a reset or a closed socket: this direction is over
		}
	}
	close(queue)
	<-writerDone
	switch {
	case src == c.client && c.dead.Load():
		// The node closed a lost connection. The database's side is closed by Heal,
		// or now if the blackhole has already lifted.
		c.client.Close()
		c.p.mu.Lock()
		black := c.p.black
		c.p.mu.Unlock()
		if !black {
			c.closeUpstream()
		}
	case c.dead.Load():
		// Heal closed the database's side of a lost connection: the node hears nothing.
	case src == c.client:
		c.closeUpstream()
	default:
		c.client.Close()
	}
}

// reset closes both sides with SO_LINGER 0, so each gets an RST.
func (c *proxyConn) reset() {
	c.closeOnce.Do(func() {
		c.client.SetLinger(0) //nolint:errcheck
		c.client.Close()
		if c.upstream != nil {
			c.upstream.SetLinger(0) //nolint:errcheck
			c.upClosed.Do(func() { c.upstream.Close() })
		}
	})
}

func (c *proxyConn) closeUpstream() {
	if c.upstream != nil {
		c.upClosed.Do(func() { c.upstream.Close() })
	}
}

// close stops accepting and closes every connection, then waits for the pumps.
func (p *NetProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.client.Close()
		c.closeUpstream()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
