package reference

import "github.com/octo-run/octo/runtime"

// Files returns the reference as docs/reference holds it, by file name: README.md (the index),
// config.md, a page per block, connector and config adapter, and every schema.
func Files() (map[string][]byte, error) {
	out := map[string][]byte{
		"README.md": []byte(indexPage()),
		"config.md": []byte(configPage()),
	}
	for _, b := range runtime.BlockTypes() {
		out["block-"+b.Type+".md"] = []byte(componentPage(blockComponent(b)))
	}
	for _, c := range runtime.ConnectorTypes() {
		out["connector-"+c.Type+".md"] = []byte(componentPage(connectorComponent(c)))
	}
	for _, a := range runtime.AdapterTypes() {
		out["adapter-"+a.Type+".md"] = []byte(adapterPage(a))
	}
	for _, name := range SchemaNames() {
		text, err := Schema(name)
		if err != nil {
			return nil, err
		}
		out[SchemaFile(name)] = text
	}
	return out, nil
}
