package postgres

import (
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// silentPath is a TCP path to the test server that can go silent: after Silence, the
// connections open through it carry nothing more, either way, and nothing tells either
// end (no reset, no FIN), as when a firewall or NAT in the path forgets them. New
// connections work. test/e2e's NetProxy does this and more between processes.
type silentPath struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []*atomic.Bool // each connection's "silent"
	wg     sync.WaitGroup
}

// newSilentPath opens a path to the server of storeURL and returns it with storeURL
// pointed at it. Everything is closed when the test ends.
func newSilentPath(t *testing.T, storeURL string) (*silentPath, string) {
	t.Helper()
	u, err := url.Parse(storeURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &silentPath{ln: ln, target: u.Host}
	var open sync.Map // every socket, to close at the end
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			open.Store(c, true)
			open.Store(up, true)
			silent := new(atomic.Bool)
			p.mu.Lock()
			p.conns = append(p.conns, silent)
			p.mu.Unlock()
			p.wg.Add(2)
			go p.pump(c, up, silent)
			go p.pump(up, c, silent)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		open.Range(func(c, _ any) bool { c.(net.Conn).Close(); return true })
		p.wg.Wait()
	})
	u.Host = ln.Addr().String()
	return p, u.String()
}

// pump copies src to dst until either fails, dropping what it reads once silent.
func (p *silentPath) pump(src, dst net.Conn, silent *atomic.Bool) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !silent.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !silent.Load() {
				dst.Close()
			}
			return
		}
	}
}

// Silence silences every connection open now.
func (p *silentPath) Silence() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.conns {
		s.Store(true)
	}
}
