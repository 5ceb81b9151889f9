package switchblock_test

import (
	"context"
	"testing"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// BenchmarkSwitchThirdCase is a switch whose third case matches: three compiled expressions
// and a one-block branch per message.
func BenchmarkSwitchThirdCase(b *testing.B) {
	svc := runtimetest.StartConfig(b, grade(true), nil)
	f := svc.Instance("flows.f").(*runtime.Flow)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m := runtime.NewMessage(nil)
		m.SetBody(map[string]any{"score": 10, "flag": true})
		if _, err := f.Run(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}
