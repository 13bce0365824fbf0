package jsonio

import (
	"bytes"
	"encoding/json"
)

// eachKey calls fn with the name of each member of obj, a valid JSON object, in
// document order, until fn returns false. It skips the values without decoding them,
// so checking the names costs little next to the decoding itself.
func eachKey(obj []byte, fn func(string) bool) {
	eachMember(obj, func(name string, _ []byte) bool { return fn(name) })
}

// eachMember is eachKey with each member's value, as its bytes in obj.
func eachMember(obj []byte, fn func(name string, value []byte) bool) {
	i := skipSpace(obj, bytes.IndexByte(obj, '{')+1)
	for i < len(obj) && obj[i] == '"' {
		end := stringEnd(obj, i)
		name := string(obj[i+1 : end-1])
		if !plainASCII(name) { // escapes or non-ASCII: let encoding/json read it, its way
			_ = json.Unmarshal(obj[i:end], &name)
		}
		i = skipSpace(obj, end)
		i = skipSpace(obj, i+1) // the colon
		v := valueEnd(obj, i)
		if !fn(name, obj[i:v]) {
			return
		}
		i = skipSpace(obj, v)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// plainASCII reports a string with neither a backslash nor a byte outside ASCII.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just after the string starting (with its quote) at i.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd is the index just after the value starting at i.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++ // a number, true, false or null
	}
	return i
}
