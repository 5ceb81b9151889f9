package octotest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

// Report is a file a run is written to for CI: junit (the JUnit XML CI servers read) or json.
type Report struct {
	Format, File string
}

// ParseReport reads FORMAT:FILE (junit:results.xml, json:results.json).
func ParseReport(spec string) (Report, error) {
	format, file, ok := strings.Cut(spec, ":")
	if !ok || file == "" || format != "junit" && format != "json" {
		return Report{}, fmt.Errorf("%q: expected junit:FILE or json:FILE", spec)
	}
	return Report{Format: format, File: file}, nil
}

// Write writes sum to the report's file, what ran against under (a config or a server).
func (r Report) Write(sum Summary, under string) error {
	var data []byte
	var err error
	if r.Format == "junit" {
		data, err = junitOf(sum, under)
	} else {
		data, err = jsonOf(sum, under)
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(r.File, data, 0o644); err != nil {
		return fmt.Errorf("--report %s: %v", r.File, err)
	}
	return nil
}

type jsonReport struct {
	Under  string     `json:"under"`
	Passed int        `json:"passed"`
	Failed int        `json:"failed"`
	Cases  []jsonCase `json:"cases"`
}

type jsonCase struct {
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Name       string   `json:"name"`
	Passed     bool     `json:"passed"`
	DurationMs int64    `json:"durationMs"`
	Failures   []string `json:"failures,omitempty"`
	Answer     string   `json:"answer,omitempty"`
	Log        string   `json:"log,omitempty"`
}

func jsonOf(sum Summary, under string) ([]byte, error) {
	rep := jsonReport{Under: under, Passed: sum.Passed, Failed: sum.Failed, Cases: []jsonCase{}}
	for _, c := range sum.Results {
		rep.Cases = append(rep.Cases, jsonCase{File: c.File, Line: c.Line, Name: c.Name, Passed: len(c.Failures) == 0,
			DurationMs: c.Duration.Milliseconds(), Failures: c.Failures, Answer: c.Answer, Log: c.Log})
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	return append(data, '\n'), err
}

// The JUnit XML elements CI servers read: one suite a run, one testcase a case (its file as
// the class name), a failure with the first problem as its message and all of them as its text.
type junitSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []junitSet `xml:"testsuite"`
}

type junitSet struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func junitOf(sum Summary, under string) ([]byte, error) {
	set := junitSet{Name: "octo test " + under, Tests: len(sum.Results), Failures: sum.Failed}
	var total float64
	for _, c := range sum.Results {
		total += c.Duration.Seconds()
		jc := junitCase{Name: c.Name, Classname: c.File, File: c.File, Line: c.Line, Time: seconds(c.Duration.Seconds()), SystemOut: c.Log}
		if len(c.Failures) > 0 {
			text := strings.Join(c.Failures, "\n")
			if c.Answer != "" {
				text += "\ngot: " + c.Answer
			}
			jc.Failure = &junitFailure{Message: c.Failures[0], Text: text}
		}
		set.Cases = append(set.Cases, jc)
	}
	set.Time = seconds(total)
	suites := junitSuites{Name: "octo test", Tests: set.Tests, Failures: set.Failures, Time: set.Time, Suites: []junitSet{set}}
	data, err := xml.MarshalIndent(suites, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), data...), '\n'), nil
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }
