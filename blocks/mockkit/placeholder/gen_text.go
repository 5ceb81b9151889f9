package placeholder

import (
	"slices"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/brianvoe/gofakeit/v7/data"
)

// maxDays bounds the day-span argument of the date names (a century).
const maxDays = 36500

func daysArg(def float64) *argSpec {
	return &argSpec{names: []string{"days"}, def: [2]float64{def}, lo: 1, hi: maxDays}
}

// within draws a duration in [1ms, days], so a future date is always after now and a
// past one before it, even at millisecond precision.
func within(r *Rand, days float64) time.Duration {
	return time.Duration(r.between(1, int64(days)*24*60*60*1000)) * time.Millisecond
}

var dateNames = map[string]*dynSpec{
	"$randomDateFuture": withArgs(daysArg(365), func(r *Rand, a [2]float64) string { return iso(r.now().Add(within(r, a[0]))) }),
	"$randomDatePast":   withArgs(daysArg(365), func(r *Rand, a [2]float64) string { return iso(r.now().Add(-within(r, a[0]))) }),
	"$randomDateRecent": withArgs(daysArg(1), func(r *Rand, a [2]float64) string { return iso(r.now().Add(-within(r, a[0]))) }),
	"$randomWeekday":    drawn(func(r *Rand) string { return time.Weekday(r.rng.IntN(7)).String() }),
	"$randomMonth":      drawn(func(r *Rand) string { return time.Month(1 + r.rng.IntN(12)).String() }),
}

// Domains, emails and usernames.
var webNames = map[string]*dynSpec{
	"$randomDomainName":   fake((*gofakeit.Faker).DomainName),
	"$randomDomainSuffix": fake((*gofakeit.Faker).DomainSuffix),
	"$randomDomainWord":   drawn(func(r *Rand) string { return slug(r.f.LastName(), "web") }),
	"$randomEmail":        fake((*gofakeit.Faker).Email),
	"$randomExampleEmail": drawn(func(r *Rand) string {
		return slug(r.f.FirstName(), "user") + "." + slug(r.f.LastName(), "name") + "@" + r.pick(exampleDomains)
	}),
	// A few generated user names hold a space ("Pee Wee642"); user names do not.
	"$randomUserName": drawn(func(r *Rand) string { return strings.ReplaceAll(r.f.Username(), " ", "") }),
	"$randomUrl":      fake((*gofakeit.Faker).URL),
}

// exampleDomains are reserved (RFC 2606): mail to them never reaches anyone.
var exampleDomains = []string{"example.com", "example.net", "example.org"}

// slug keeps the lowercase ASCII letters of s, or returns fallback when none are left.
func slug(s, fallback string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return fallback
	}
	return string(b)
}

// Files and directories.
var fileNames = map[string]*dynSpec{
	"$randomFileName":       drawn(func(r *Rand) string { return baseName(r) + "." + r.f.FileExtension() }),
	"$randomFileType":       oneOf("application", "audio", "font", "image", "model", "text", "video"),
	"$randomFileExt":        fake((*gofakeit.Faker).FileExtension),
	"$randomCommonFileName": drawn(func(r *Rand) string { return baseName(r) + "." + r.pick(commonExts) }),
	"$randomCommonFileType": oneOf("application", "audio", "image", "text", "video"),
	"$randomCommonFileExt":  oneOf(commonExts...),
	"$randomFilePath": drawn(func(r *Rand) string {
		return r.pick(directories) + "/" + baseName(r) + "." + r.f.FileExtension()
	}),
	"$randomDirectoryPath": oneOf(directories...),
	"$randomMimeType":      oneOf(mimeTypes...),
}

var commonExts = []string{"pdf", "txt", "csv", "json", "html", "png", "jpeg", "gif", "mp3", "wav",
	"mp4", "mpeg", "zip", "docx", "xlsx"}

var directories = []string{"/bin", "/etc", "/home/user", "/opt", "/tmp", "/usr/bin", "/usr/lib",
	"/usr/local/bin", "/usr/share", "/var/lib", "/var/log", "/var/tmp"}

// mimeTypes is gofakeit's list without the entries that carry a comment ("drawing/x-dwf
// (old)") and so are not media types.
var mimeTypes = slices.DeleteFunc(slices.Clone(data.Files["mime_type"]), func(m string) bool {
	return strings.ContainsRune(m, ' ')
})

// baseName reads like "dolor_voluptas": two lorem words joined by an underscore.
func baseName(r *Rand) string {
	return r.f.LoremIpsumWord() + "_" + r.f.LoremIpsumWord()
}

// Grammar and lorem ipsum.
var wordNames = map[string]*dynSpec{
	"$randomNoun":      fake((*gofakeit.Faker).HackerNoun),
	"$randomVerb":      fake((*gofakeit.Faker).HackerVerb),
	"$randomIngverb":   fake((*gofakeit.Faker).HackeringVerb),
	"$randomAdjective": fake((*gofakeit.Faker).HackerAdjective),
	"$randomWord":      fake((*gofakeit.Faker).Word),
	"$randomWords": withArgs(countArg("count", 3), func(r *Rand, a [2]float64) string {
		return repeat(int(a[0]), " ", r.f.Word)
	}),
	"$randomPhrase": fake((*gofakeit.Faker).HackerPhrase),

	"$randomLoremWord": fake((*gofakeit.Faker).LoremIpsumWord),
	"$randomLoremWords": withArgs(countArg("count", 3), func(r *Rand, a [2]float64) string {
		return repeat(int(a[0]), " ", r.f.LoremIpsumWord)
	}),
	"$randomLoremSentence": withArgs(countArg("words", 0), func(r *Rand, a [2]float64) string {
		return sentence(r, int(a[0]))
	}),
	"$randomLoremSentences": withArgs(countArg("count", 3), func(r *Rand, a [2]float64) string {
		return sentences(r, int(a[0]), " ")
	}),
	"$randomLoremParagraph": withArgs(countArg("sentences", 3), func(r *Rand, a [2]float64) string {
		return sentences(r, int(a[0]), " ")
	}),
	"$randomLoremParagraphs": withArgs(countArg("count", 3), func(r *Rand, a [2]float64) string {
		return repeat(int(a[0]), "\n", func() string { return sentences(r, 3, " ") })
	}),
	"$randomLoremText": drawn(func(r *Rand) string { return sentences(r, 3+r.rng.IntN(4), " ") }),
	"$randomLoremSlug": withArgs(countArg("words", 3), func(r *Rand, a [2]float64) string {
		return repeat(int(a[0]), "-", r.f.LoremIpsumWord)
	}),
	"$randomLoremLines": withArgs(countArg("count", 3), func(r *Rand, a [2]float64) string {
		return sentences(r, int(a[0]), "\n")
	}),
}

// sentence draws one capitalised lorem sentence ending in a period; words 0 means 5 to 10.
func sentence(r *Rand, words int) string {
	if words == 0 {
		words = 5 + r.rng.IntN(6)
	}
	return r.f.LoremIpsumSentence(words)
}

func sentences(r *Rand, n int, sep string) string {
	return repeat(n, sep, func() string { return sentence(r, 0) })
}

func repeat(n int, sep string, next func() string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(next())
	}
	return b.String()
}
