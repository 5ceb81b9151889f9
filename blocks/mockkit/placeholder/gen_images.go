package placeholder

import (
	"fmt"
	"net/url"
)

// imageHost is reserved for documentation (RFC 2606): image URLs never point at a real
// picture service that could vanish or leak traffic, and clients that must show an image
// can be given $randomImageDataUri instead.
const imageHost = "https://example.com/mock-images/"

// maxImageSide bounds the width and height arguments of image names.
const maxImageSide = 4096

func sizeArg(w, h float64) *argSpec {
	return &argSpec{names: []string{"width", "height"}, def: [2]float64{w, h}, lo: 1, hi: maxImageSide}
}

// imageURL draws https://example.com/mock-images/<category>/<w>x<h>/<n>.jpg, n in 1..1000.
func imageURL(category string, w, h float64) *dynSpec {
	return withArgs(sizeArg(w, h), func(r *Rand, a [2]float64) string {
		return fmt.Sprintf("%s%s/%dx%d/%d.jpg", imageHost, category, int(a[0]), int(a[1]), r.between(1, 1000))
	})
}

var imageNames = map[string]*dynSpec{
	"$randomAvatarImage":    imageURL("avatar", 128, 128),
	"$randomImageUrl":       imageURL("any", 640, 480),
	"$randomAbstractImage":  imageURL("abstract", 640, 480),
	"$randomAnimalsImage":   imageURL("animals", 640, 480),
	"$randomBusinessImage":  imageURL("business", 640, 480),
	"$randomCatsImage":      imageURL("cats", 640, 480),
	"$randomCityImage":      imageURL("city", 640, 480),
	"$randomFoodImage":      imageURL("food", 640, 480),
	"$randomNightlifeImage": imageURL("nightlife", 640, 480),
	"$randomFashionImage":   imageURL("fashion", 640, 480),
	"$randomPeopleImage":    imageURL("people", 640, 480),
	"$randomNatureImage":    imageURL("nature", 640, 480),
	"$randomSportsImage":    imageURL("sports", 640, 480),
	"$randomTransportImage": imageURL("transport", 640, 480),
	"$randomImageDataUri":   withArgs(sizeArg(640, 480), svgDataURI),
}

// svgDataURI draws a real, self-contained picture: a rectangle of a random color labelled
// with its size, as a percent-encoded SVG data URI.
func svgDataURI(r *Rand, a [2]float64) string {
	w, h := int(a[0]), int(a[1])
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">`+
		`<rect width="100%%" height="100%%" fill="#%06x"/>`+
		`<text x="50%%" y="50%%" font-size="20" text-anchor="middle" dominant-baseline="middle" fill="#ffffff">%dx%d</text>`+
		`</svg>`, w, h, r.rng.IntN(1<<24), w, h)
	return "data:image/svg+xml;charset=UTF-8," + url.PathEscape(svg)
}
