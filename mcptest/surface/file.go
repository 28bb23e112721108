package surface

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// writeReport writes r, the process's report, where Env asks: into a
// directory, a file of this binary's own; into a file, this binary's part
// of it (see Report.Packages), so that the binaries of one go test run,
// which run at once, add up rather than overwrite one another.
func writeReport(r *Report) error {
	p := os.Getenv(Env)
	if p == "" {
		return nil
	}
	pkg := binaryPackage()
	if fi, err := os.Stat(p); (err == nil && fi.IsDir()) || strings.HasSuffix(p, string(os.PathSeparator)) || strings.HasSuffix(p, "/") {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		return r.WriteFile(filepath.Join(p, reportName(pkg)))
	}
	return mergeInto(p, pkg, r)
}

// binaryPackage names the running binary by its main package: a test
// binary's is the tested package's path with ".test".
func binaryPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return "tests"
}

// reportName is the file of package pkg's report in a directory: the path
// made a file name, readable, and a hash of the path, so that two paths
// never share a name ("a_b" and "a/b").
func reportName(pkg string) string {
	sum := sha256.Sum256([]byte(pkg))
	readable := strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, pkg)
	return readable + "-" + hex.EncodeToString(sum[:4]) + ".json"
}

// lockWait bounds the wait for another binary's write of the same file:
// a lock still there after it was left by a binary that died writing.
const lockWait = time.Minute

// mergeInto makes r package pkg's part of the report file at path, under a
// lock (a directory beside it, which making is atomic everywhere): each
// binary replaces its own part, and the file's Servers is the sum of the
// parts.
func mergeInto(path, pkg string, r *Report) error {
	lock := path + ".lock"
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		err := os.Mkdir(lock, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		if time.Since(start) > lockWait {
			return fmt.Errorf("writing %s: %s is still there after %v: remove it if no test binary is writing the report", path, lock, lockWait)
		}
	}
	defer os.Remove(lock)
	file := &Report{}
	if old, err := readReport(path); err == nil {
		file.Packages = old.Packages // a report without parts (an older one) is replaced
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if file.Packages == nil {
		file.Packages = map[string]*Report{}
	}
	file.Packages[pkg] = &Report{Servers: r.Servers}
	for _, part := range file.Packages {
		file.Merge(part)
	}
	return file.WriteFile(path)
}
