package placeholder

import (
	"sync"
	"unicode/utf8"
)

// bufPool recycles render buffers; the answer is copied out as a string.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooled keeps one huge answer from pinning its buffer forever.
const maxPooled = 64 << 10

// Render writes the answer for one request. Client values are inserted as data and never
// scanned for tags. A nil r uses a package generator seeded from the clock at start-up.
// Render is safe for concurrent use.
func (t *Template) Render(in Input, r *Rand) string {
	if t.static {
		return t.text
	}
	bp := bufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	if cap(buf) < t.size {
		buf = make([]byte, 0, t.size)
	}
	buf = t.render(buf, in, r)
	s := string(buf)
	if cap(buf) <= maxPooled {
		*bp = buf
		bufPool.Put(bp)
	}
	return s
}

func (t *Template) render(dst []byte, in Input, r *Rand) []byte {
	var slots [8]string
	vals := slots[:0]
	if t.hasDyn {
		if r == nil {
			r = defaultRand
		}
		// One lock per answer: its draws stay in one run, so a seed reproduces it.
		r.mu.Lock()
		defer r.mu.Unlock()
		for i := range t.slots {
			vals = append(vals, t.slots[i].draw(r))
		}
	}
	for i := range t.segs {
		s := &t.segs[i]
		switch s.op {
		case opLit:
			dst = append(dst, s.text...)
		case opArg:
			v, ok := lookup(in.tree(s.src), s.path)
			dst = appendValue(dst, s.ctx, v, ok)
		case opArgs:
			dst = appendValue(dst, s.ctx, in.tree(s.src), true)
		case opParam:
			if v, ok := in.strings(s.src)[s.text]; ok {
				dst = appendString(dst, s.ctx, v) // not through any: that would allocate
			} else {
				dst = appendValue(dst, s.ctx, nil, false)
			}
		case opParams:
			dst = appendValue(dst, s.ctx, in.strings(s.src), true)
		case opDyn:
			dst = appendDrawn(dst, s.ctx, s.call.spec.kind, s.call.draw(r))
		case opSlot:
			dst = appendDrawn(dst, s.ctx, t.slots[s.slot].spec.kind, vals[s.slot])
		}
	}
	return dst
}

// lookup follows an args or body path through objects and, by index, arrays.
func lookup(root any, path []pathPart) (any, bool) {
	cur := root
	for _, p := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[p.key]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			if p.index < 0 || p.index >= len(c) {
				return nil, false
			}
			cur = c[p.index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// appendValue writes a client value. A missing one writes nothing, except where a JSON
// value goes: there it is null, so the answer stays valid JSON.
func appendValue(dst []byte, ctx context, v any, ok bool) []byte {
	if !ok {
		if ctx == ctxJSONValue {
			return append(dst, "null"...)
		}
		return dst
	}
	if s, isString := v.(string); isString {
		return appendString(dst, ctx, s)
	}
	if ctx == ctxJSONString {
		return appendEscaped(dst, string(appendJSON(nil, v)))
	}
	return appendJSON(dst, v)
}

// appendString writes text: as is, escaped inside a JSON string, quoted as a JSON value.
func appendString(dst []byte, ctx context, s string) []byte {
	switch ctx {
	case ctxJSONString:
		return appendEscaped(dst, s)
	case ctxJSONValue:
		return appendQuoted(dst, s)
	}
	return append(dst, s...)
}

// appendDrawn writes a dynamic value: numbers and booleans stay bare as JSON values.
func appendDrawn(dst []byte, ctx context, kind valueKind, v string) []byte {
	if ctx == ctxJSONValue && kind != kindText {
		return append(dst, v...)
	}
	return appendString(dst, ctx, v)
}

// Size returns how many bytes Render writes for in, without writing them, so
// a caller can reserve room for an answer before building it. Drawn values
// ({{$…}}) count as empty: they are short, and drawing them here would
// change what a seed reproduces.
func (t *Template) Size(in Input) int {
	if t.static {
		return len(t.text)
	}
	n := 0
	for i := range t.segs {
		s := &t.segs[i]
		switch s.op {
		case opLit:
			n += len(s.text)
		case opArg:
			v, ok := lookup(in.tree(s.src), s.path)
			n += valueSize(s.ctx, v, ok)
		case opArgs:
			n += valueSize(s.ctx, in.tree(s.src), true)
		case opParam:
			v, ok := in.strings(s.src)[s.text]
			n += valueSize(s.ctx, v, ok)
		case opParams:
			n += valueSize(s.ctx, in.strings(s.src), true)
		}
	}
	return n
}

// valueSize is the length appendValue writes; only a string is measured in
// place, since it is what a large answer is made of.
func valueSize(ctx context, v any, ok bool) int {
	s, isString := v.(string)
	if !ok || !isString {
		return len(appendValue(nil, ctx, v, ok))
	}
	switch ctx {
	case ctxJSONString:
		return escapedSize(s)
	case ctxJSONValue:
		return escapedSize(s) + 2
	}
	return len(s)
}

// escapedSize is the length appendEscaped writes for s.
func escapedSize(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n++
			case c < 0x20:
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6 - size
		}
		i += size
	}
	return n
}
