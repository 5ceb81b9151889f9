package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

// maxSpecBytes bounds the description read: the largest public ones are a few tens of MB.
const maxSpecBytes = 128 << 20

// spec is a loaded API description: as OpenAPI 3 (Swagger 2.0 converted), with where it came
// from, which a relative server URL is resolved against.
type spec struct {
	doc     *openapi3.T
	version string   // as written: "2.0", "3.0.3", "3.1.0"
	from    *url.URL // the URL it was read from; nil for a file
}

// load reads the description at source, a file or an http(s) URL.
func load(ctx context.Context, source string) (*spec, error) {
	data, from, err := read(ctx, source)
	if err != nil {
		return nil, err
	}
	version, err := versionOf(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	sp := &spec{version: version, from: from}
	switch {
	case version == "2.0":
		sp.doc, err = fromSwagger(data)
	case strings.HasPrefix(version, "3."):
		loader := openapi3.NewLoader()
		loader.Context = ctx
		loader.IsExternalRefsAllowed = true // $refs to files beside it, or beside its URL
		location := from
		if location == nil {
			abs, _ := filepath.Abs(source)
			location = &url.URL{Path: filepath.ToSlash(abs)}
		}
		sp.doc, err = load3(loader, data, location)
	default:
		return nil, fmt.Errorf("%s is OpenAPI %s: octo imports Swagger 2.0 and OpenAPI 3.0 and 3.1", source, version)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if sp.doc.Paths == nil || sp.doc.Paths.Len() == 0 {
		return nil, fmt.Errorf("%s describes no paths: there is nothing to make tools of", source)
	}
	return sp, nil
}

// read returns the bytes at source and, for a URL, the URL.
func read(ctx context.Context, source string) ([]byte, *url.URL, error) {
	u, err := url.Parse(source)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		if fi, err := os.Stat(source); err == nil && fi.IsDir() {
			return nil, nil, fmt.Errorf("%s is a folder: name the description's file", source)
		}
		f, err := os.Open(source)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		data, err := readAll(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", source, err)
		}
		return data, nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("fetching the description: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("%s answered %s", source, resp.Status)
	}
	data, err := readAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", source, err)
	}
	return data, resp.Request.URL, nil
}

func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSpecBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSpecBytes {
		return nil, fmt.Errorf("larger than %d MB", maxSpecBytes>>20)
	}
	return data, nil
}

// topVersion finds the swagger or openapi field of a YAML document in block style, where a
// top-level key starts its line.
var topVersion = regexp.MustCompile(`(?m)^(swagger|openapi)[ \t]*:[ \t]*["']?([0-9][^"'\s#]*)`)

// versionOf reads the swagger or openapi field without decoding the rest of the document
// (which the loader decodes next): a JSON document's through a struct of two fields, a YAML
// one's from its line, decoding the YAML only when it is written some other way.
func versionOf(data []byte) (string, error) {
	var head struct {
		Swagger string `json:"swagger" yaml:"swagger"`
		OpenAPI string `json:"openapi" yaml:"openapi"`
	}
	var err error
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		err = json.Unmarshal(data, &head)
	} else if m := topVersion.FindSubmatch(data); m != nil {
		return string(m[2]), nil
	} else {
		err = yaml.Unmarshal(data, &head)
	}
	if err != nil {
		return "", fmt.Errorf("not JSON or YAML: %w", err)
	}
	if head.Swagger != "" {
		return head.Swagger, nil
	}
	if head.OpenAPI != "" {
		return head.OpenAPI, nil
	}
	return "", errors.New("has no openapi or swagger field: it is not an API description")
}

// fromSwagger converts a Swagger 2.0 description, JSON or YAML, into OpenAPI 3.
func fromSwagger(data []byte) (*openapi3.T, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		var err error
		if data, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(data, &doc2); err != nil {
		return nil, err
	}
	return openapi2conv.ToV3(&doc2)
}

// load3 loads an OpenAPI 3 document. The loader reads every document as YAML, to note where
// each part was written; a JSON one is decoded as JSON instead, a few times faster, and its
// $refs resolved after.
func load3(loader *openapi3.Loader, data []byte, location *url.URL) (*openapi3.T, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return loader.LoadFromDataWithPath(data, location)
	}
	doc := &openapi3.T{}
	if err := json.Unmarshal(data, doc); err != nil {
		return nil, err
	}
	if err := loader.ResolveRefsIn(doc, location); err != nil {
		return nil, err
	}
	return doc, nil
}
