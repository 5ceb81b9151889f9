package openapi_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/blocks/mcp/router/openapi"
)

// largeSpec writes an OpenAPI 3.0 description of about size bytes: resources with a list, a
// get and a create each, their schemas named components that refer to each other.
func largeSpec(t testing.TB, size int) (string, int) {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Large","version":"1"},"servers":[{"url":"https://large.example.com"}],"paths":{`)
	var schemas strings.Builder
	n := 0
	for ; b.Len()+schemas.Len() < size; n++ {
		if n > 0 {
			b.WriteByte(',')
			schemas.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/r%[1]d":{"get":{"operationId":"list%[1]d","summary":"List the r%[1]d items","parameters":[{"name":"limit","in":"query","schema":{"type":"integer"}},{"name":"q","in":"query","description":"A search over the items' names and their long descriptions.","schema":{"type":"string"}}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/components/schemas/R%[1]d"}}}}}}}}},`+
			`"post":{"operationId":"create%[1]d","requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/R%[1]d"}}}},"responses":{"201":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/R%[1]d"}}}}}}},`+
			`"/r%[1]d/{id}":{"get":{"operationId":"get%[1]d","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/R%[1]d"}}}}}}}`, n)
		fmt.Fprintf(&schemas, `"R%[1]d":{"type":"object","required":["name"],"properties":{"id":{"type":"string","readOnly":true},"name":{"type":"string","maxLength":200},"description":{"type":"string","description":"What the item is, in a sentence or a paragraph, as people wrote it."},"size":{"type":"number","minimum":0},"labels":{"type":"object","additionalProperties":{"type":"string"}},"parent":{"$ref":"#/components/schemas/R%[2]d"}}}`, n, n-n%10)
	}
	b.WriteString(`},"components":{"schemas":{` + schemas.String() + `}}}`)
	file := filepath.Join(t.TempDir(), "large.json")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, 3 * n
}

func TestALargeDescriptionImportsWhole(t *testing.T) {
	file, ops := largeSpec(t, 1<<20)
	im, err := openapi.Load(context.Background(), file, openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Tools()) != ops || len(im.Skipped()) != 0 {
		t.Fatalf("%d tools of %d operations; left out %v", len(im.Tools()), ops, im.Skipped())
	}
	dir, _ := imported(t, file)
	if out, errs, code := octo(t, "validate", dir); code != 0 {
		t.Fatalf("validate: %s%s", out, errs)
	}
}

// BenchmarkImport10MB loads a 10 MB description and plans its tools (`octo import` adds
// writing the YAML).
func BenchmarkImport10MB(b *testing.B) {
	file, _ := largeSpec(b, 10<<20)
	b.ResetTimer()
	for b.Loop() {
		if _, err := openapi.Load(context.Background(), file, openapi.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
