package jsonrpc

import (
	"encoding/json"
	"unsafe"

	"github.com/octo-run/octo/mcp/internal/jsonscan"
)

// A large tool result (a tool that echoes a 4 MiB argument answers 8 MiB: its text and its
// structuredContent) is encoded once, into a buffer with room before it for the JSON-RPC head
// and after it for the closing brace, and the transport writes the envelope there instead of
// copying the answer into a new buffer to frame it. A small result is copied: that costs
// less than the frame.

// FrameFrom is the encoded size from which a result is worth framing in place.
const FrameFrom = 32 << 10

// Frame is a buffer holding head room, a result, and a byte for the closing brace.
type Frame struct {
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

// NewFrame encodes a result of about size bytes with enc into a frame for a response to id;
// ok is false when enc cannot encode it (the caller falls back to encoding/json).
func NewFrame(id ID, size int, enc func([]byte) ([]byte, bool)) (*Frame, bool) {
	head := headOf(id)
	buf := make([]byte, head, head+size+1)
	buf, ok := enc(buf)
	if !ok {
		return nil, false
	}
	return &Frame{buf: buf, head: head, result: json.RawMessage(buf[head:])}, true
}

// Result is the result the frame holds.
func (f *Frame) Result() json.RawMessage { return f.result }

// Frames reports whether result is the frame's own, untouched: nothing replaced the answer
// (an error, the answer budget) between the tool and the transport.
func (f *Frame) Frames(result json.RawMessage) bool {
	return len(result) == len(f.result) && unsafe.SliceData(result) == unsafe.SliceData(f.result) && !jsonscan.IsNull(result)
}

// Response is the whole JSON-RPC response, the envelope written around the result in place.
func (f *Frame) Response(id ID) []byte {
	head := appendHead(f.buf[:0], id)
	head = append(head, `,"result":`...)
	if len(head) != f.head {
		panic("jsonrpc: a frame's head room does not fit its id") // headOf and appendHead disagree
	}
	return append(f.buf, '}')
}
