package ops

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/octo-run/octo/runtime/cli"
)

// `octo image` writes a container image of octo and a config without Docker: the static binary
// and the config folder on an empty base, run as a user that is not root, with a HEALTHCHECK
// that probes /healthz. go-containerregistry writes the image (the registry's own library: its
// layers, digests and archive format are the ones docker load and registries read).
func init() {
	cli.RegisterCommand(cli.Command{Name: "image", Order: 65, Run: imageCommand,
		Summary: "write a container image (a docker load archive) of this octo and a config folder, without Docker: static, non-root, HEALTHCHECK on /healthz",
		Usage:   "image --config DIR --out FILE [--tag octo:dev] [--binary FILE]"})
}

// The image's fixed parts: where things are, and who runs them.
const (
	imageBinary = "/usr/local/bin/octo"
	imageConfig = "/etc/octo"
	imageUser   = "65532:65532" // nonroot, as distroless names it
)

func imageCommand(_ context.Context, env *cli.Env, args []string) error {
	fs := cli.NewFlags("image", env)
	cfg := fs.String("config", "", "the config folder the image serves (copied to "+imageConfig+")")
	out := fs.String("out", "", "the file to write: an image archive for docker load (or podman load, crane push)")
	tag := fs.String("tag", "octo:dev", "the image's name and tag in the archive")
	binary := fs.String("binary", "", "the octo binary to put in the image (a linux build: make release); default: this one, when it is a linux build")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	case *cfg == "" || *out == "":
		return cli.Usagef("--config and --out are required: octo image --config samples/mcp-router --out octo.tar")
	}
	ref, err := name.NewTag(*tag)
	if err != nil {
		return cli.Usagef("--tag %q: %v", *tag, err)
	}
	bin := *binary
	if bin == "" {
		if goruntime.GOOS != "linux" {
			return cli.Usagef("this octo is a %s build; an image runs linux: give --binary a linux build (make release)", goruntime.GOOS)
		}
		if bin, err = os.Executable(); err != nil {
			return err
		}
	}
	img, err := Image(bin, *cfg, goruntime.GOARCH)
	if err != nil {
		return err
	}
	if err := tarball.WriteToFile(*out, ref, img); err != nil {
		return fmt.Errorf("octo image: %w", err)
	}
	digest, _ := img.Digest()
	fmt.Fprintf(env.Stdout, "wrote %s: %s (%s), serving %s; load it with docker load -i %s\n", *out, ref, digest, *cfg, *out)
	return nil
}

// Image is an image of binary (a static linux build for arch) serving the config folder dir.
func Image(binary, dir, arch string) (v1.Image, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: give a config folder", dir)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return layerOf(binary, dir) })
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.Config.User = imageUser
	cf.Config.Entrypoint = []string{imageBinary}
	cf.Config.Cmd = []string{"run", "--config", imageConfig, "--admin", "0.0.0.0:9090", "--drain-delay", "5s", "--shutdown-timeout", "20s"}
	cf.Config.Env = []string{"HTTP_PORT=8080", "HTTP_HOST=0.0.0.0", "GOMEMLIMIT=200MiB"}
	cf.Config.ExposedPorts = map[string]struct{}{"8080/tcp": {}, "9090/tcp": {}}
	// No shell or curl in the image: octo probes itself.
	cf.Config.Healthcheck = &v1.HealthConfig{Test: []string{"CMD", imageBinary, "probe", "http://127.0.0.1:9090/healthz"},
		Interval: 10 * time.Second, Timeout: 3 * time.Second, StartPeriod: 5 * time.Second, Retries: 3}
	return mutate.ConfigFile(img, cf)
}

// layerOf is the image's one layer: the binary, the config folder, and a /tmp.
func layerOf(binary, dir string) (io.ReadCloser, error) {
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := writeLayer(tw, binary, dir)
		if cerr := tw.Close(); err == nil {
			err = cerr
		}
		pw.CloseWithError(err)
	}()
	return pr, nil
}

func writeLayer(tw *tar.Writer, binary, dir string) error {
	epoch := time.Unix(0, 0)
	for _, d := range []string{"usr/", "usr/local/", "usr/local/bin/", "etc/", "etc/octo/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: epoch}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: epoch}); err != nil {
		return err
	}
	if err := addFile(tw, binary, strings.TrimPrefix(imageBinary, "/"), 0o755); err != nil {
		return err
	}
	root := strings.TrimPrefix(imageConfig, "/")
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		target := path.Join(root, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: target + "/", Mode: 0o755, ModTime: epoch})
		case d.Type().IsRegular():
			return addFile(tw, p, target, 0o644)
		}
		return nil // links and the like are left out: the config is its files
	})
}

func addFile(tw *tar.Writer, src, target string, mode int64) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: target, Mode: mode, Size: info.Size(), ModTime: time.Unix(0, 0)}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}
