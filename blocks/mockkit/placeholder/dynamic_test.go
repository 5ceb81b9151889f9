package placeholder

import (
	"encoding/xml"
	"math/big"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// postmanNames is the list of dynamic-variables.md, which octo promises to support.
var postmanNames = strings.Fields(`
$guid $timestamp $isoTimestamp $randomUUID
$randomAlphaNumeric $randomBoolean $randomInt $randomColor $randomHexColor $randomAbbreviation
$randomIP $randomIPV6 $randomMACAddress $randomPassword $randomLocale $randomUserAgent $randomProtocol $randomSemver
$randomFirstName $randomLastName $randomFullName $randomNamePrefix $randomNameSuffix
$randomJobArea $randomJobDescriptor $randomJobTitle $randomJobType
$randomPhoneNumber $randomPhoneNumberExt $randomCity $randomStreetName $randomStreetAddress $randomCountry
$randomCountryCode $randomLatitude $randomLongitude
$randomAvatarImage $randomImageUrl $randomAbstractImage $randomAnimalsImage $randomBusinessImage $randomCatsImage
$randomCityImage $randomFoodImage $randomNightlifeImage $randomFashionImage $randomPeopleImage $randomNatureImage
$randomSportsImage $randomTransportImage $randomImageDataUri
$randomBankAccount $randomBankAccountName $randomCreditCardMask $randomBankAccountBic $randomBankAccountIban
$randomTransactionType $randomCurrencyCode $randomCurrencyName $randomCurrencySymbol $randomBitcoin
$randomCompanyName $randomCompanySuffix $randomBs $randomBsAdjective $randomBsBuzz $randomBsNoun
$randomCatchPhrase $randomCatchPhraseAdjective $randomCatchPhraseDescriptor $randomCatchPhraseNoun
$randomDatabaseColumn $randomDatabaseType $randomDatabaseCollation $randomDatabaseEngine
$randomDateFuture $randomDatePast $randomDateRecent $randomWeekday $randomMonth
$randomDomainName $randomDomainSuffix $randomDomainWord $randomEmail $randomExampleEmail $randomUserName $randomUrl
$randomFileName $randomFileType $randomFileExt $randomCommonFileName $randomCommonFileType $randomCommonFileExt
$randomFilePath $randomDirectoryPath $randomMimeType
$randomPrice $randomProduct $randomProductAdjective $randomProductMaterial $randomProductName $randomDepartment
$randomNoun $randomVerb $randomIngverb $randomAdjective $randomWord $randomWords $randomPhrase
$randomLoremWord $randomLoremWords $randomLoremSentence $randomLoremSentences $randomLoremParagraph
$randomLoremParagraphs $randomLoremText $randomLoremSlug $randomLoremLines`)

func TestEveryPostmanNameAndUUIDExist(t *testing.T) {
	if len(postmanNames) != 118 {
		t.Fatalf("the spec lists 118 names, the test has %d", len(postmanNames))
	}
	want := append(slices.Clone(postmanNames), "$uuid")
	slices.Sort(want)
	if got := DynamicNames(); !slices.Equal(got, want) {
		t.Fatalf("DynamicNames() differs from the spec's list plus $uuid:\n got %v\nwant %v", got, want)
	}
}

func TestReferenceDocumentsEveryName(t *testing.T) {
	doc, err := os.ReadFile("REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `(\\$[A-Za-z0-9]+)` \\|").FindAllStringSubmatch(string(doc), -1)
	var documented []string
	for _, m := range rows {
		documented = append(documented, m[1])
	}
	slices.Sort(documented)
	if !slices.Equal(documented, DynamicNames()) {
		t.Fatalf("REFERENCE.md table rows %v\ndo not match DynamicNames() %v", documented, DynamicNames())
	}
}

const (
	uuidRE     = `[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`
	trimmedRE  = `\S(?:[^\n]*\S)?`
	isoRE      = `\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`
	sentenceRE = `[A-Z][a-z]*(?: [a-z]+)*\.`
	fileRE     = `[a-z]+_[a-z]+\.[a-z0-9]+`
)

func image(category, size string) string {
	return `https://example\.com/mock-images/` + category + `/` + size + `/(?:[1-9]\d{0,2}|1000)\.jpg`
}

// formats is the documented shape of every name, bare. A name missing here fails the test.
var formats = map[string]string{
	"$guid": uuidRE, "$randomUUID": uuidRE, "$uuid": uuidRE,
	"$timestamp": `1735787045`, "$isoTimestamp": `2025-01-02T03:04:05\.000Z`,

	"$randomAlphaNumeric": `[a-z0-9]`, "$randomBoolean": `true|false`, "$randomInt": `0|[1-9]\d{0,2}|1000`,
	"$randomColor": `[a-z]+`, "$randomHexColor": `#[0-9a-f]{6}`, "$randomAbbreviation": `[A-Z0-9]{2,5}`,

	"$randomIP": `(?:\d{1,3}\.){3}\d{1,3}`, "$randomIPV6": `(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}`,
	"$randomMACAddress": `(?:[0-9a-f]{2}:){5}[0-9a-f]{2}`, "$randomPassword": `[A-Za-z0-9]{15}`,
	"$randomLocale": `[a-z]{2}`, "$randomUserAgent": `[A-Za-z]+/[0-9.]+ \(.+`, "$randomProtocol": `https?`,
	"$randomSemver": `\d\.\d\.\d`,

	"$randomFirstName": trimmedRE, "$randomLastName": trimmedRE, "$randomFullName": `\S+(?: \S+)* \S+`,
	"$randomNamePrefix": `Mr\.|Mrs\.|Ms\.|Miss|Dr\.`, "$randomNameSuffix": `Jr\.|Sr\.|I|II|III|IV|V|MD|DDS|PhD|DVM`,

	"$randomJobArea": trimmedRE, "$randomJobDescriptor": trimmedRE, "$randomJobTitle": `\S+(?: \S+){2,}`,
	"$randomJobType": trimmedRE,

	"$randomPhoneNumber": `\d{3}-\d{3}-\d{4}`, "$randomPhoneNumberExt": `\d{2}-\d{3}-\d{3}-\d{4}`,
	"$randomCity": trimmedRE, "$randomStreetName": `\S+(?: \S+)* \S+`, "$randomStreetAddress": `[1-9]\d{0,4} \S.*\S`,
	"$randomCountry": trimmedRE, "$randomCountryCode": `[A-Z]{2}`,
	"$randomLatitude": `-?\d{1,2}\.\d{4}`, "$randomLongitude": `-?\d{1,3}\.\d{4}`,

	"$randomAvatarImage": image("avatar", "128x128"), "$randomImageUrl": image("any", "640x480"),
	"$randomAbstractImage": image("abstract", "640x480"), "$randomAnimalsImage": image("animals", "640x480"),
	"$randomBusinessImage": image("business", "640x480"), "$randomCatsImage": image("cats", "640x480"),
	"$randomCityImage": image("city", "640x480"), "$randomFoodImage": image("food", "640x480"),
	"$randomNightlifeImage": image("nightlife", "640x480"), "$randomFashionImage": image("fashion", "640x480"),
	"$randomPeopleImage": image("people", "640x480"), "$randomNatureImage": image("nature", "640x480"),
	"$randomSportsImage": image("sports", "640x480"), "$randomTransportImage": image("transport", "640x480"),
	"$randomImageDataUri": `data:image/svg\+xml;charset=UTF-8,%3Csvg[^ "<>]+`,

	"$randomBankAccount": `\d{8}`, "$randomBankAccountName": `[A-Z][A-Za-z ]+ Account`,
	"$randomCreditCardMask": `\d{4}`, "$randomBankAccountBic": `[A-Z]{6}[A-Z0-9]{2}`,
	"$randomBankAccountIban": `(?:DE\d{20}|GB\d{2}[A-Z]{4}\d{14}|NL\d{2}[A-Z]{4}\d{10}|ES\d{22}|BE\d{14})`,
	"$randomTransactionType": `deposit|withdrawal|payment|invoice`, "$randomCurrencyCode": `[A-Z]{3}`,
	"$randomCurrencyName": trimmedRE, "$randomCurrencySymbol": `\S{1,3}`,
	"$randomBitcoin": `[13][1-9A-HJ-NP-Za-km-z]{25,33}`,

	"$randomCompanyName": trimmedRE, "$randomCompanySuffix": `Inc|LLC|Group|and Sons`,
	"$randomBs": `[a-z]+ [a-z0-9/-]+ [a-z-]+`, "$randomBsAdjective": `[a-z0-9/-]+`, "$randomBsBuzz": `[a-z]+`,
	"$randomBsNoun": `[a-z-]+`,

	"$randomCatchPhrase": `[A-Z][a-z-]+ [a-z0-9/-]+ [a-z]+`, "$randomCatchPhraseAdjective": `[A-Z][a-z-]+`,
	"$randomCatchPhraseDescriptor": `[a-z0-9/-]+`, "$randomCatchPhraseNoun": `[a-z]+`,

	"$randomDatabaseColumn": `[a-z][A-Za-z]*`, "$randomDatabaseType": `[a-z]+`,
	"$randomDatabaseCollation": `[a-z0-9]+_[a-z_]+`, "$randomDatabaseEngine": `InnoDB|MyISAM|MEMORY|CSV|ARCHIVE|BLACKHOLE`,

	"$randomDateFuture": isoRE, "$randomDatePast": isoRE, "$randomDateRecent": isoRE,
	"$randomWeekday": `Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday`,
	"$randomMonth":   `January|February|March|April|May|June|July|August|September|October|November|December`,

	"$randomDomainName": `[a-z0-9-]+\.[a-z]+`, "$randomDomainSuffix": `com|biz|info|name|net|org|io`,
	"$randomDomainWord": `[a-z]+`, "$randomEmail": `[^@\s]+@[a-z0-9-]+\.[a-z]+`,
	"$randomExampleEmail": `[a-z]+\.[a-z]+@example\.(?:com|net|org)`, "$randomUserName": `\S+`,
	"$randomUrl": `https?://www\.[a-z0-9-]+\.[a-z]+/\S*`,

	"$randomFileName": fileRE, "$randomFileType": `application|audio|font|image|model|text|video`,
	"$randomFileExt": `[a-z0-9]+`, "$randomCommonFileName": `[a-z]+_[a-z]+\.(?:pdf|txt|csv|json|html|png|jpeg|gif|mp3|wav|mp4|mpeg|zip|docx|xlsx)`,
	"$randomCommonFileType": `application|audio|image|text|video`,
	"$randomCommonFileExt":  `pdf|txt|csv|json|html|png|jpeg|gif|mp3|wav|mp4|mpeg|zip|docx|xlsx`,
	"$randomFilePath":       `(?:/[a-z]+)+/` + fileRE, "$randomDirectoryPath": `(?:/[a-z]+)+`,
	"$randomMimeType": `[a-z0-9.+-]+/[A-Za-z0-9.+_-]+`,

	"$randomPrice": `\d{1,4}\.\d{2}`, "$randomProduct": `[A-Z]` + trimmedRE[2:],
	"$randomProductAdjective": `[A-Z]` + trimmedRE[2:], "$randomProductMaterial": trimmedRE,
	"$randomProductName": trimmedRE, "$randomDepartment": `[A-Z][a-z]+`,

	"$randomNoun": trimmedRE, "$randomVerb": trimmedRE, "$randomIngverb": `\S+ing(?: \S+)?`, "$randomAdjective": trimmedRE,
	"$randomWord": `\S+`, "$randomWords": `\S+ \S+ \S+`, "$randomPhrase": trimmedRE,

	"$randomLoremWord": `[a-z]+`, "$randomLoremWords": `[a-z]+ [a-z]+ [a-z]+`,
	"$randomLoremSentence":   `[A-Z][a-z]*(?: [a-z]+){4,9}\.`,
	"$randomLoremSentences":  sentenceRE + ` ` + sentenceRE + ` ` + sentenceRE,
	"$randomLoremParagraph":  sentenceRE + ` ` + sentenceRE + ` ` + sentenceRE,
	"$randomLoremParagraphs": `(?:` + sentenceRE + `(?: ` + sentenceRE + `){2}\n){2}` + sentenceRE + `(?: ` + sentenceRE + `){2}`,
	"$randomLoremText":       sentenceRE + `(?: ` + sentenceRE + `){2,5}`,
	"$randomLoremSlug":       `[a-z]+-[a-z]+-[a-z]+`, "$randomLoremLines": sentenceRE + `\n` + sentenceRE + `\n` + sentenceRE,
}

func TestEveryNameRendersItsDocumentedFormat(t *testing.T) {
	r := NewRand(2025, fixedClock)
	for _, name := range DynamicNames() {
		t.Run(name+" matches its format", func(t *testing.T) {
			pattern, ok := formats[name]
			if !ok {
				t.Fatalf("no documented format for %s in this test", name)
			}
			re := regexp.MustCompile(`^(?:` + pattern + `)$`)
			tp, err := Compile("{{"+name+"}}", nil)
			if err != nil {
				t.Fatal(err)
			}
			for range 300 {
				got := tp.Render(Input{}, r)
				if !re.MatchString(got) {
					t.Fatalf("%s gave %q, want /%s/", name, got, pattern)
				}
				if err := checkMeaning(name, got); err != "" {
					t.Fatalf("%s gave %q: %s", name, got, err)
				}
			}
		})
	}
}

// checkMeaning checks what a pattern cannot: ranges, checksums, parseability.
func checkMeaning(name, v string) string {
	switch name {
	case "$randomIP":
		if ip := net.ParseIP(v); ip == nil || ip.To4() == nil {
			return "not an IPv4 address"
		}
	case "$randomIPV6":
		if net.ParseIP(v) == nil {
			return "not an IPv6 address"
		}
	case "$randomLatitude", "$randomLongitude":
		limit := 90.0
		if name == "$randomLongitude" {
			limit = 180
		}
		if f, _ := strconv.ParseFloat(v, 64); f < -limit || f > limit {
			return "out of range"
		}
	case "$randomBankAccountIban":
		return ibanCheck(v)
	case "$randomImageDataUri":
		return svgCheck(v, "640", "480")
	case "$randomUrl":
		if u, err := url.Parse(v); err != nil || u.Host == "" {
			return "not a URL"
		}
	case "$randomDateFuture", "$randomDatePast", "$randomDateRecent":
		return dateCheck(name, v, 0)
	case "$randomPrice":
		if f, _ := strconv.ParseFloat(v, 64); f < 1 || f > 1000 {
			return "out of 1..1000"
		}
	}
	return ""
}

// ibanCheck validates ISO 13616 check digits independently of the generator.
func ibanCheck(v string) string {
	var digits strings.Builder
	for _, c := range v[4:] + v[:4] {
		if c >= 'A' && c <= 'Z' {
			digits.WriteString(strconv.Itoa(int(c-'A') + 10))
		} else {
			digits.WriteRune(c)
		}
	}
	n, _ := new(big.Int).SetString(digits.String(), 10)
	if n.Mod(n, big.NewInt(97)).Int64() != 1 {
		return "IBAN check digits are wrong"
	}
	return ""
}

func svgCheck(v, w, h string) string {
	raw, err := url.PathUnescape(strings.TrimPrefix(v, "data:image/svg+xml;charset=UTF-8,"))
	if err != nil {
		return "payload is not percent-encoded: " + err.Error()
	}
	var svg struct {
		XMLName xml.Name `xml:"svg"`
		Width   string   `xml:"width,attr"`
		Height  string   `xml:"height,attr"`
		Text    string   `xml:"text"`
	}
	if err := xml.Unmarshal([]byte(raw), &svg); err != nil {
		return "payload is not SVG: " + err.Error()
	}
	if svg.Width != w || svg.Height != h || svg.Text != w+"x"+h {
		return "wrong size " + svg.Width + "x" + svg.Height
	}
	return ""
}

// dateCheck: future dates lie in (now, now+days], past and recent ones in [now-days, now).
func dateCheck(name, v string, days int) string {
	when, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return err.Error()
	}
	if days == 0 {
		days = 365
		if name == "$randomDateRecent" {
			days = 1
		}
	}
	span := time.Duration(days) * 24 * time.Hour
	switch {
	case name == "$randomDateFuture" && (!when.After(fixedNow) || when.After(fixedNow.Add(span))):
		return "not within the future span"
	case name != "$randomDateFuture" && (!when.Before(fixedNow) || when.Before(fixedNow.Add(-span))):
		return "not within the past span"
	}
	return ""
}

func TestArgumentsChangeTheOutput(t *testing.T) {
	cases := []struct {
		name, tag, pattern string
		check              func(string) string
	}{
		{"randomAlphaNumeric takes a length", "{{$randomAlphaNumeric 12}}", `[a-z0-9]{12}`, nil},
		{"randomPassword takes a length", "{{ $randomPassword 40 }}", `[A-Za-z0-9]{40}`, nil},
		{"randomWords takes a count", "{{$randomWords 5}}", `\S+(?: \S+){4}`, nil},
		{"randomLoremWords takes a count", "{{$randomLoremWords 1}}", `[a-z]+`, nil},
		{"randomLoremSentence takes a word count", "{{$randomLoremSentence 4}}", `[A-Z][a-z]*(?: [a-z]+){3}\.`, nil},
		{"randomLoremSentences takes a count", "{{$randomLoremSentences 2}}", sentenceRE + ` ` + sentenceRE, nil},
		{"randomLoremParagraph takes a sentence count", "{{$randomLoremParagraph 1}}", sentenceRE, nil},
		{"randomLoremParagraphs takes a count", "{{$randomLoremParagraphs 2}}", `[^\n]+\n[^\n]+`, nil},
		{"randomLoremLines takes a count", "{{$randomLoremLines 5}}", `(?:` + sentenceRE + `\n){4}` + sentenceRE, nil},
		{"randomLoremSlug takes a word count", "{{$randomLoremSlug 2}}", `[a-z]+-[a-z]+`, nil},
		{"image names take a size", "{{$randomCatsImage 200 100}}", image("cats", "200x100"), nil},
		{"the data URI takes a size", "{{$randomImageDataUri 32 16}}", `data:.+`,
			func(v string) string { return svgCheck(v, "32", "16") }},
		{"randomPrice takes a range with cents", "{{$randomPrice 0.5 0.51}}", `0\.5[01]`, nil},
		{"randomPrice with equal ends is that price", "{{$randomPrice 9.99 9.99}}", `9\.99`, nil},
		{"randomInt with equal ends is that number", "{{$randomInt -5 -5}}", `-5`, nil},
		{"randomInt takes the widest exact range", "{{$randomInt -9007199254740991 9007199254740991}}", `-?\d{1,16}`, nil},
		{"randomDateFuture takes a day span", "{{$randomDateFuture 2}}", isoRE,
			func(v string) string { return dateCheck("$randomDateFuture", v, 2) }},
		{"randomDatePast takes a day span", "{{$randomDatePast 3}}", isoRE,
			func(v string) string { return dateCheck("$randomDatePast", v, 3) }},
		{"randomDateRecent takes a day span", "{{$randomDateRecent 7}}", isoRE,
			func(v string) string { return dateCheck("$randomDateRecent", v, 7) }},
	}
	r := NewRand(11, fixedClock)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			re := regexp.MustCompile(`^(?:` + tc.pattern + `)$`)
			tp, err := Compile(tc.tag, nil)
			if err != nil {
				t.Fatal(err)
			}
			for range 200 {
				got := tp.Render(Input{}, r)
				if !re.MatchString(got) {
					t.Fatalf("%s gave %q, want /%s/", tc.tag, got, tc.pattern)
				}
				if tc.check != nil {
					if msg := tc.check(got); msg != "" {
						t.Fatalf("%s gave %q: %s", tc.tag, got, msg)
					}
				}
			}
		})
	}
}

func TestRandomIntCoversItsWholeRange(t *testing.T) {
	cases := []struct {
		name, tag string
		lo, hi    int
		draws     int
	}{
		{"bare randomInt draws 0 to 1000 inclusive", "{{$randomInt}}", 0, 1000, 30000},
		{"randomInt 1 10 draws 1 to 10 inclusive", "{{$randomInt 1 10}}", 1, 10, 2000},
		{"randomInt over negatives draws -3 to 2 inclusive", "{{$randomInt -3 2}}", -3, 2, 2000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Compile(tc.tag, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRand(5, nil)
			seen := map[int]bool{}
			for range tc.draws {
				n, err := strconv.Atoi(tp.Render(Input{}, r))
				if err != nil || n < tc.lo || n > tc.hi {
					t.Fatalf("draw %d (%v) outside %d..%d", n, err, tc.lo, tc.hi)
				}
				seen[n] = true
			}
			if !seen[tc.lo] || !seen[tc.hi] {
				t.Fatalf("never drew an end of %d..%d", tc.lo, tc.hi)
			}
			if tc.hi-tc.lo <= 10 && len(seen) != tc.hi-tc.lo+1 {
				t.Fatalf("drew %d distinct values, want all %d", len(seen), tc.hi-tc.lo+1)
			}
		})
	}
}
