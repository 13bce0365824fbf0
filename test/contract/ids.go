package contract

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// The suite makes its own alarm and token ids: UUID version 7 strings, as chronos
// does, so stores with a native UUID column accept them. They are strictly increasing
// in the order newID is called (process-wide), which the list-order cases rely on:
// "newest first" is by id.
var ids struct {
	sync.Mutex
	lastMs int64
	seq    uint16 // 12 bits of counter within one millisecond (rand_a)
}

func newID() string {
	ids.Lock()
	ms := time.Now().UnixMilli()
	switch {
	case ms > ids.lastMs:
		ids.seq = 0
	case ids.seq < 0xfff:
		ms = ids.lastMs
		ids.seq++
	default:
		ms = ids.lastMs + 1
		ids.seq = 0
	}
	ids.lastMs = ms
	seq := ids.seq
	ids.Unlock()

	var b [16]byte
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	b[6] = 0x70 | byte(seq>>8)&0x0f
	b[7] = byte(seq)
	_, _ = rand.Read(b[8:]) // never fails (crypto/rand documents it)
	b[8] = b[8]&0x3f | 0x80

	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
