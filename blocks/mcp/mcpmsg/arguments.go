package mcpmsg

import (
	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/runtime"
)

// Arguments is the body a tool's branch starts with, as the build checks body.x against it: the
// properties its inputSchema declares, when it lists them all (mcp.Schema.PropertyNames).
func Arguments(f *mcp.ToolFields) *runtime.BodyKeys {
	names, ok := f.InputSchema.PropertyNames()
	if !ok {
		return nil
	}
	return &runtime.BodyKeys{Names: names, What: "a property of the inputSchema",
		Fix: "declare it under inputSchema.properties, or correct the name"}
}
