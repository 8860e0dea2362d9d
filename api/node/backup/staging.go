package backup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A restore is made in a staging directory beside its target, named
// .<target>.restoring-<pid>-<random>, and moved into place at the end. It
// holds the backup's keys, the signing key among them: a restore that
// fails removes it, and one killed before it could (SIGKILL, a power cut)
// leaves it for the next restore into the same target to remove
// (RemoveStaging).

// stagingPrefix is the name of target's staging directories up to the pid.
func stagingPrefix(target string) string { return "." + filepath.Base(target) + ".restoring-" }

// newStaging makes a staging directory for target, naming this process.
func newStaging(target string) (string, error) {
	return os.MkdirTemp(filepath.Dir(target), stagingPrefix(target)+strconv.Itoa(os.Getpid())+"-")
}

// RemoveStaging removes the staging directories of restores into target
// that no running process is making any more (their process is gone), and
// returns them: what a killed restore left behind, a copy of the signing
// key with it.
func RemoveStaging(target string) ([]string, error) {
	target, err := filepath.Abs(target)
	if err != nil {
		return nil, err
	}
	found, err := filepath.Glob(filepath.Join(filepath.Dir(target), stagingPrefix(target)+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, dir := range found {
		rest := strings.TrimPrefix(filepath.Base(dir), stagingPrefix(target))
		pid, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); err == nil && (n == os.Getpid() || running(n)) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, fmt.Errorf("restore: remove %s, left by a restore that did not finish: %w", dir, err)
		}
		removed = append(removed, dir)
	}
	return removed, nil
}
