package jsonv

// MaxScanDepth is the nesting Scan follows, as encoding/json does: a value nested deeper is
// not valid for Valid and Decode either.
const MaxScanDepth = 10000

// Scan reports whether data is one JSON value, with white space around it at most, as
// json.Valid accepts it (a string may hold bytes that are not UTF-8; a control character
// must be escaped), and how deeply its objects and arrays nest: 0 for a scalar, 1 for
// {"a":1}. It stops at the first fault, and past MaxScanDepth, where ok is false.
//
// It answers what json.Valid does some times faster: every request body is checked before
// it is read in place, and json.Valid steps a state machine through a function call per
// byte.
func Scan(data []byte) (depth int, ok bool) {
	s := scanner{b: data}
	s.space()
	if !s.value(1) {
		return s.deepest, false
	}
	s.space()
	return s.deepest, s.i == len(s.b)
}

// Valid reports whether data is one JSON value, as json.Valid does.
func Valid(data []byte) bool {
	_, ok := Scan(data)
	return ok
}

type scanner struct {
	b       []byte
	i       int
	deepest int
}

func (s *scanner) space() { s.i = SkipSpace(s.b, s.i) }

// SkipSpace is the index of the first byte from i on that is not JSON's white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value scans the value at s.i; level is the nesting an object or array there would have.
func (s *scanner) value(level int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(level)
	case c == '[':
		return s.array(level)
	case c == '"':
		return s.string()
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *scanner) enter(level int) bool {
	if level > MaxScanDepth {
		return false
	}
	s.deepest = max(s.deepest, level)
	s.i++
	s.space()
	return true
}

func (s *scanner) object(level int) bool {
	if !s.enter(level) {
		return false
	}
	if s.closes('}') {
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.string() {
			return false
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if !s.value(level + 1) {
			return false
		}
		if more, ok := s.after('}'); !more {
			return ok
		}
	}
}

func (s *scanner) array(level int) bool {
	if !s.enter(level) {
		return false
	}
	if s.closes(']') {
		return true
	}
	for {
		if !s.value(level + 1) {
			return false
		}
		if more, ok := s.after(']'); !more {
			return ok
		}
	}
}

// closes scans an object's or array's closing byte, if it is next.
func (s *scanner) closes(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// after scans what follows a member or an element: a comma, and more follows, or the
// closing byte c.
func (s *scanner) after(c byte) (more, ok bool) {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ',' {
		s.i++
		s.space()
		return true, true
	}
	return false, s.closes(c)
}

// inString marks the bytes a string holds as they are: not its closing quote, not an escape,
// not a control character.
var inString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// string scans the string whose opening quote is at s.i.
func (s *scanner) string() bool {
	s.i++
	for {
		for s.i < len(s.b) && inString[s.b[s.i]] {
			s.i++
		}
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case '"':
			s.i++
			return true
		case '\\':
			if !s.escape() {
				return false
			}
		default: // a control character
			return false
		}
	}
}

// escape scans the escape whose backslash is at s.i.
func (s *scanner) escape() bool {
	s.i++
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i++
		return true
	case 'u':
		if s.i+4 >= len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+1 : s.i+5] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 5
		return true
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i >= len(s.b):
		return false
	case s.b[s.i] == '0':
		s.i++
	case '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits scans one digit or more.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
