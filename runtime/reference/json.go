package reference

import (
	"bytes"
	"encoding/json"
	"slices"
)

// obj is a JSON object whose keys keep the order they were set in, so a schema reads in the
// order the settings are declared and prints the same bytes every time.
type obj struct {
	keys []string
	vals map[string]any
}

func newObj() *obj { return &obj{vals: map[string]any{}} }

// set sets key k to v, keeping k's place when it is set already.
func (o *obj) set(k string, v any) *obj {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

// has reports whether key k is set.
func (o *obj) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// del removes key k.
func (o *obj) del(k string) *obj {
	if o.has(k) {
		delete(o.vals, k)
		o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
	}
	return o
}

// merge sets every key of p on o, in p's order.
func (o *obj) merge(p *obj) *obj {
	for _, k := range p.keys {
		o.set(k, p.vals[k])
	}
	return o
}

// MarshalJSON writes the keys in order.
func (o *obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := marshal(k)
		if err != nil {
			return nil, err
		}
		val, err := marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v without escaping <, > and &, which docs hold and a schema shows as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// indented encodes v indented by two spaces, ending with a newline.
func indented(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var _ json.Marshaler = (*obj)(nil)
