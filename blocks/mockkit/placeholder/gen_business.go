package placeholder

import (
	"fmt"
	"strconv"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/brianvoe/gofakeit/v7/data"
)

// Finance; business; catchphrases; databases.
var financeNames = map[string]*dynSpec{
	"$randomBankAccount":     drawn(func(r *Rand) string { return r.digits("########") }),
	"$randomBankAccountName": drawn(func(r *Rand) string { return r.pick(accountKinds) + " Account" }),
	"$randomCreditCardMask":  drawn(func(r *Rand) string { return r.digits("####") }),
	"$randomBankAccountBic":  drawn(bic),
	"$randomBankAccountIban": drawn(iban),
	"$randomTransactionType": oneOf("deposit", "withdrawal", "payment", "invoice"),
	"$randomCurrencyCode":    fake((*gofakeit.Faker).CurrencyShort),
	"$randomCurrencyName":    fake((*gofakeit.Faker).CurrencyLong),
	"$randomCurrencySymbol":  oneOf("$", "€", "£", "¥", "₹", "₩", "₽", "₺", "₴", "₦", "₱", "₪", "฿", "₫", "R$", "CHF", "kr", "zł"),
	"$randomBitcoin":         drawn(bitcoin),
}

var businessNames = map[string]*dynSpec{
	"$randomCompanyName":   fake((*gofakeit.Faker).Company),
	"$randomCompanySuffix": fake((*gofakeit.Faker).CompanySuffix),
	"$randomBs": drawn(func(r *Rand) string {
		return r.pick(bsBuzz) + " " + r.pick(bsAdjectives) + " " + r.pick(bsNouns)
	}),
	"$randomBsAdjective": oneOf(bsAdjectives...),
	"$randomBsBuzz":      oneOf(bsBuzz...),
	"$randomBsNoun":      oneOf(bsNouns...),

	"$randomCatchPhrase": drawn(func(r *Rand) string {
		return r.pick(catchAdjectives) + " " + r.pick(catchDescriptors) + " " + r.pick(catchNouns)
	}),
	"$randomCatchPhraseAdjective":  oneOf(catchAdjectives...),
	"$randomCatchPhraseDescriptor": oneOf(catchDescriptors...),
	"$randomCatchPhraseNoun":       oneOf(catchNouns...),

	"$randomDatabaseColumn": oneOf("id", "title", "name", "email", "status", "comment", "token",
		"group", "category", "password", "avatar", "createdAt", "updatedAt"),
	"$randomDatabaseType": oneOf("int", "bigint", "smallint", "tinyint", "decimal", "float", "double",
		"varchar", "char", "text", "blob", "boolean", "date", "time", "datetime", "timestamp", "enum", "json"),
	"$randomDatabaseCollation": oneOf("utf8mb4_general_ci", "utf8mb4_unicode_ci", "utf8mb4_bin",
		"utf8_general_ci", "utf8_unicode_ci", "utf8_bin", "ascii_general_ci", "ascii_bin", "latin1_swedish_ci"),
	"$randomDatabaseEngine": oneOf("InnoDB", "MyISAM", "MEMORY", "CSV", "ARCHIVE", "BLACKHOLE"),
}

var accountKinds = []string{"Checking", "Savings", "Money Market", "Investment", "Credit Card",
	"Home Loan", "Auto Loan", "Personal Loan"}

var (
	bsBuzz = []string{"implement", "integrate", "streamline", "optimize", "transform", "enable",
		"orchestrate", "leverage", "reinvent", "aggregate", "architect", "empower", "monetize",
		"harness", "facilitate", "deploy", "scale", "synthesize", "deliver", "engage"}
	bsAdjectives = []string{"value-added", "vertical", "proactive", "robust", "scalable", "innovative",
		"intuitive", "strategic", "mission-critical", "end-to-end", "global", "granular", "frictionless",
		"real-time", "seamless", "extensible", "turn-key", "world-class", "cross-platform", "holistic"}
	bsNouns = []string{"synergies", "paradigms", "markets", "partnerships", "platforms", "initiatives",
		"channels", "communities", "solutions", "portals", "technologies", "content", "architectures",
		"interfaces", "systems", "models", "deliverables", "schemas", "networks", "metrics"}
	catchAdjectives = []string{"Adaptive", "Advanced", "Automated", "Balanced", "Centralized", "Configurable",
		"Customizable", "Decentralized", "Distributed", "Enhanced", "Ergonomic", "Integrated", "Intuitive",
		"Managed", "Multi-layered", "Networked", "Optimized", "Proactive", "Robust", "Seamless", "Streamlined",
		"Synchronized", "Upgradable", "User-friendly", "Versatile"}
	catchDescriptors = []string{"24/7", "asynchronous", "bi-directional", "client-server", "context-sensitive",
		"dedicated", "demand-driven", "dynamic", "fault-tolerant", "heuristic", "high-level", "hybrid",
		"incremental", "interactive", "mission-critical", "modular", "multi-tasking", "object-oriented",
		"real-time", "zero-defect"}
	catchNouns = []string{"ability", "access", "adapter", "algorithm", "alliance", "approach", "architecture",
		"archive", "benchmark", "capability", "circuit", "database", "framework", "hub", "infrastructure",
		"initiative", "middleware", "paradigm", "protocol", "toolset"}
)

// bic draws an 8-character SWIFT code: bank (4 letters), country (2), location (2).
func bic(r *Rand) string {
	return r.chars(4, upperLetters) + r.f.CountryAbr() + r.chars(2, upperLetters+"0123456789")
}

const upperLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// ibanShapes are real national layouts: '#' a digit, 'A' a capital letter.
var ibanShapes = []struct{ country, bban string }{
	{"DE", "##################"},
	{"GB", "AAAA##############"},
	{"NL", "AAAA##########"},
	{"ES", "####################"},
	{"BE", "############"},
}

// iban draws an IBAN whose ISO 13616 check digits are correct, so validators accept it.
func iban(r *Rand) string {
	shape := ibanShapes[r.rng.IntN(len(ibanShapes))]
	b := []byte(shape.bban)
	for i, c := range b {
		if c == '#' {
			b[i] = byte('0' + r.rng.IntN(10))
		} else {
			b[i] = upperLetters[r.rng.IntN(26)]
		}
	}
	bban := string(b)
	check := 98 - ibanMod97(bban+shape.country+"00")
	return shape.country + fmt.Sprintf("%02d", check) + bban
}

// ibanMod97 reads letters as 10..35 and returns the number mod 97, digit by digit.
func ibanMod97(s string) int {
	m := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			v := int(c-'A') + 10
			m = (m*100 + v) % 97
		} else {
			m = (m*10 + int(c-'0')) % 97
		}
	}
	return m
}

const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// bitcoin draws a legacy-looking address: '1' or '3' then base58, 26 to 34 characters in all.
func bitcoin(r *Rand) string {
	return r.pick([]string{"1", "3"}) + r.chars(int(r.between(25, 33)), base58)
}

// Stores.
var storeNames = map[string]*dynSpec{
	"$randomPrice": withArgs(&argSpec{
		names: []string{"min", "max"}, def: [2]float64{1, 1000}, lo: 0, hi: 1e9, decimals: 2, ordered: true,
	}, price).as(kindNumber),
	"$randomProduct":          drawn(func(r *Rand) string { return titleCase(r.pick(data.Product["name"])) }),
	"$randomProductAdjective": drawn(func(r *Rand) string { return titleCase(r.pick(data.Product["adjective"])) }),
	"$randomProductMaterial":  fake((*gofakeit.Faker).ProductMaterial),
	"$randomProductName":      fake((*gofakeit.Faker).ProductName),
	"$randomDepartment": oneOf("Books", "Movies", "Music", "Games", "Electronics", "Computers", "Home",
		"Garden", "Tools", "Grocery", "Health", "Beauty", "Toys", "Kids", "Baby", "Clothing", "Shoes",
		"Jewelry", "Sports", "Outdoors", "Automotive", "Industrial"),
}

// price draws whole cents in [min, max] and always writes two decimals.
func price(r *Rand, a [2]float64) string {
	lo, hi := int64(a[0]*100+0.5), int64(a[1]*100+0.5)
	c := r.between(lo, hi)
	return strconv.FormatInt(c/100, 10) + "." + fmt.Sprintf("%02d", c%100)
}

// titleCase capitalises the first ASCII letter of every space-separated word.
func titleCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if (i == 0 || b[i-1] == ' ') && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
