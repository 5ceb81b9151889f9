package httprequest

import (
	"strconv"
	"strings"

	"github.com/octo-run/octo/runtime"
)

// statusSet holds the statuses outside 2xx that acceptStatus counts as answers: codes, and
// classes by their first digit.
type statusSet struct {
	codes   map[int]bool
	classes [6]bool // 1xx … 5xx
}

func buildAccept(b *runtime.Build, s *Settings) statusSet {
	var set statusSet
	for i, text := range s.AcceptStatus {
		v := strings.ToLower(strings.TrimSpace(text))
		if len(v) == 3 && v[1:] == "xx" && v[0] >= '1' && v[0] <= '5' {
			set.classes[v[0]-'0'] = true
			continue
		}
		code, err := strconv.Atoi(v)
		if err != nil || code < 100 || code > 599 {
			b.Errorf(&s.AcceptStatus[i], "status %q: expected a code from 100 to 599 (404) or a class (4xx)", text)
			continue
		}
		if set.codes == nil {
			set.codes = map[int]bool{}
		}
		set.codes[code] = true
	}
	return set
}

// accepted reports whether an answer with this status is taken: any 2xx, or one acceptStatus
// names.
func (blk *Block) accepted(status int) bool {
	if status >= 200 && status < 300 || blk.accept.codes[status] {
		return true
	}
	class := status / 100
	return class >= 1 && class <= 5 && blk.accept.classes[class]
}
