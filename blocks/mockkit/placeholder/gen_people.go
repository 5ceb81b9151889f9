package placeholder

import (
	"fmt"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

// Names; profession; phone, address and location.
var peopleNames = map[string]*dynSpec{
	"$randomFirstName":  fake((*gofakeit.Faker).FirstName),
	"$randomLastName":   fake((*gofakeit.Faker).LastName),
	"$randomFullName":   drawn(func(r *Rand) string { return r.f.FirstName() + " " + r.f.LastName() }),
	"$randomNamePrefix": fake((*gofakeit.Faker).NamePrefix),
	"$randomNameSuffix": fake((*gofakeit.Faker).NameSuffix),

	"$randomJobArea":       fake((*gofakeit.Faker).JobLevel),
	"$randomJobDescriptor": fake((*gofakeit.Faker).JobDescriptor),
	"$randomJobTitle": drawn(func(r *Rand) string {
		return r.f.JobDescriptor() + " " + r.f.JobLevel() + " " + r.f.JobTitle()
	}),
	"$randomJobType": fake((*gofakeit.Faker).JobTitle),

	"$randomPhoneNumber":    drawn(func(r *Rand) string { return r.digits("###-###-####") }),
	"$randomPhoneNumberExt": drawn(func(r *Rand) string { return r.digits("##-###-###-####") }),
	"$randomCity":           fake((*gofakeit.Faker).City),
	"$randomStreetName":     drawn(streetName),
	"$randomStreetAddress": drawn(func(r *Rand) string {
		return fmt.Sprintf("%d %s", r.between(1, 99999), streetName(r))
	}),
	"$randomCountry":     fake((*gofakeit.Faker).Country),
	"$randomCountryCode": fake((*gofakeit.Faker).CountryAbr),
	"$randomLatitude":    drawn(func(r *Rand) string { return degrees(r, 90) }).as(kindNumber),
	"$randomLongitude":   drawn(func(r *Rand) string { return degrees(r, 180) }).as(kindNumber),
}

// streetName reads like "Kuhic Alley": a family name and a street type.
func streetName(r *Rand) string {
	return strings.TrimSpace(r.f.LastName()) + " " + r.f.StreetName()
}

// degrees draws in [-limit, limit] with exactly four decimals, counted in ten-thousandths
// so the ends are reachable and no float rounding shows.
func degrees(r *Rand, limit int64) string {
	n := r.between(-limit*10000, limit*10000)
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	return fmt.Sprintf("%s%d.%04d", sign, n/10000, n%10000)
}
