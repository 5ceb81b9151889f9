package mcp

import (
	"encoding/json"
	"unsafe"
)

// A large tool result (a tool that echoes a 4 MiB argument answers 8 MiB: its text and its
// structuredContent) is encoded once, into a buffer with room before it for the JSON-RPC head
// and after it for the closing brace, and the transport writes the envelope there instead of
// copying the answer into a new buffer to frame it. A small result is copied: that costs
// less than the frame.

// frameFrom is the encoded size from which a tool result is framed in place.
const frameFrom = 32 << 10

// frame is a buffer holding head room, a result, and a byte for the closing brace.
type frame struct {
	buf    []byte // head room + result + 1
	head   int    // the room before the result: appendHead's length for the request's id
	result json.RawMessage
}

// headOf is what AppendResult writes before a result for id.
func headOf(id ID) int {
	n := len(`{"jsonrpc":"2.0"`) + len(`,"result":`)
	if !id.IsZero() {
		n += len(`,"id":`) + len(id.raw)
	}
	return n
}

// newFrame encodes a result of about size bytes with enc into a frame for a response to id;
// ok is false when enc cannot encode it (the caller falls back to encoding/json).
func newFrame(id ID, size int, enc func([]byte) ([]byte, bool)) (*frame, bool) {
	head := headOf(id)
	buf := make([]byte, head, head+size+1)
	buf, ok := enc(buf)
	if !ok {
		return nil, false
	}
	return &frame{buf: buf, head: head, result: json.RawMessage(buf[head:])}, true
}

// frames reports whether result is the frame's own, untouched: nothing replaced the answer
// (an error, the answer budget) between the tool and the transport.
func (f *frame) frames(result json.RawMessage) bool {
	return len(result) == len(f.result) && unsafe.SliceData(result) == unsafe.SliceData(f.result) && !isNull(result)
}

// response is the whole JSON-RPC response, the envelope written around the result in place.
func (f *frame) response(id ID) []byte {
	head := appendHead(f.buf[:0], id)
	head = append(head, `,"result":`...)
	if len(head) != f.head {
		panic("mcp: a frame's head room does not fit its id") // headOf and appendHead disagree
	}
	return append(f.buf, '}')
}

// answer is the encoded response to a request: its result framed in place when the tool made
// a frame for it, else copied behind the envelope; an answer over the request's answer budget
// becomes the error that says so.
func (s *Server) answer(rc *RequestContext, id ID, resp Response, size int) []byte {
	var msg []byte
	if f := rc.framed; f != nil && resp.Error == nil && f.frames(resp.Result) {
		msg = f.response(id)
	} else {
		// {"jsonrpc":"2.0","id":…,"result":…}: 33 bytes around the id and the result.
		msg = AppendResponse(make([]byte, 0, len(resp.Result)+len(id.raw)+40), resp)
	}
	if limit, scaled := s.answerLimit(size); int64(len(msg)) > limit {
		b := &budget{limit: limit, scaled: scaled}
		msg = AppendError(nil, id, b.overBudget(int64(len(msg))))
	}
	return msg
}
