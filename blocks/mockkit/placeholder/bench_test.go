package placeholder

import "testing"

func BenchmarkRender(b *testing.B) {
	in := Input{
		Args:   map[string]any{"city": `Pa"ris`, "count": 3.0, "address": map[string]any{"zip": "75001"}},
		Params: map[string]string{"id": "A-100"},
	}
	cases := []struct{ name, text string }{
		{"static", `{"status": "ok", "items": [1, 2, 3], "host": "{{host}}"}`},
		{"text with arguments", `Weather in {{args.city}} for {{args.count}} days, item {{params.id}}`},
		{"JSON with arguments", `{"city": "{{args.city}}", "days": {{args.count}}, "zip": {{args.address.zip}}, "item": "{{params.id}}"}`},
		{"JSON with dynamic values", `{"id": "{{$uuid as id}}", "ref": "{{id}}", "temp": {{$randomInt -10 35}}, "at": "{{$isoTimestamp}}", "city": "{{args.city}}"}`},
	}
	r := NewRand(1, nil)
	for _, tc := range cases {
		tp, err := Compile(tc.text, map[string]string{"host": "api.example.com"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = tp.Render(in, r)
			}
		})
	}
}
