package placeholder

import (
	"fmt"
	"strconv"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// isoLayout is RFC 3339 in UTC with milliseconds, the shape JavaScript's toISOString
// writes, so answers copied from other API tools compare equal in form.
const isoLayout = "2006-01-02T15:04:05.000Z"

func iso(t time.Time) string { return t.UTC().Format(isoLayout) }

const (
	lowerDigits = "abcdefghijklmnopqrstuvwxyz0123456789"
	mixedDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// Common; text, numbers and colors; internet.
var commonNames = map[string]*dynSpec{
	"$guid":         fake((*gofakeit.Faker).UUID),
	"$randomUUID":   fake((*gofakeit.Faker).UUID),
	"$uuid":         fake((*gofakeit.Faker).UUID),
	"$timestamp":    drawn(func(r *Rand) string { return strconv.FormatInt(r.now().Unix(), 10) }).as(kindNumber),
	"$isoTimestamp": drawn(func(r *Rand) string { return iso(r.now()) }),

	"$randomAlphaNumeric": withArgs(countArg("length", 1), func(r *Rand, a [2]float64) string {
		return r.chars(int(a[0]), lowerDigits)
	}),
	"$randomBoolean": drawn(func(r *Rand) string { return strconv.FormatBool(r.rng.IntN(2) == 1) }).as(kindBool),
	"$randomInt": withArgs(&argSpec{
		names: []string{"min", "max"}, def: [2]float64{0, 1000}, lo: -maxSafeInt, hi: maxSafeInt, ordered: true,
	}, func(r *Rand, a [2]float64) string {
		return strconv.FormatInt(r.between(int64(a[0]), int64(a[1])), 10)
	}).as(kindNumber),
	"$randomColor":        fake((*gofakeit.Faker).SafeColor),
	"$randomHexColor":     drawn(func(r *Rand) string { return fmt.Sprintf("#%06x", r.rng.IntN(1<<24)) }),
	"$randomAbbreviation": fake((*gofakeit.Faker).HackerAbbreviation),

	"$randomIP":         fake((*gofakeit.Faker).IPv4Address),
	"$randomIPV6":       fake((*gofakeit.Faker).IPv6Address),
	"$randomMACAddress": fake((*gofakeit.Faker).MacAddress),
	"$randomPassword": withArgs(countArg("length", 15), func(r *Rand, a [2]float64) string {
		return r.chars(int(a[0]), mixedDigits)
	}),
	"$randomLocale":    fake((*gofakeit.Faker).LanguageAbbreviation),
	"$randomUserAgent": fake((*gofakeit.Faker).UserAgent),
	"$randomProtocol":  oneOf("http", "https"),
	"$randomSemver": drawn(func(r *Rand) string {
		return fmt.Sprintf("%d.%d.%d", r.rng.IntN(10), r.rng.IntN(10), r.rng.IntN(10))
	}),
}
