package objectstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTestLocal(t *testing.T, dir string) *Local {
	t.Helper()
	s, err := Open(context.Background(), Config{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.(*Local)
}

// Readers never see a new content with an old type or the reverse: the
// metadata file is the single point where a version becomes visible.
func TestLocalOverwritesAreAtomic(t *testing.T) {
	s := openTestLocal(t, t.TempDir())
	versions := map[string]string{"text/a": strings.Repeat("a", 3000), "text/b": strings.Repeat("b", 70000)}
	mustPut(t, s, "org1/race", versions["text/a"], PutOptions{ContentType: "text/a"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ct := []string{"text/a", "text/b"}[w]
			for ctx.Err() == nil {
				if _, err := s.Put(context.Background(), "org1/race", strings.NewReader(versions[ct]), PutOptions{ContentType: ct}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	reads := 0
	for ctx.Err() == nil {
		obj, err := s.Get(context.Background(), "org1/race")
		if err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		body := readAll(t, obj.Body)
		if body != versions[obj.ContentType] || int64(len(body)) != obj.Size {
			t.Fatalf("read %d: %d bytes under %s (size %d)", reads, len(body), obj.ContentType, obj.Size)
		}
		reads++
	}
	wg.Wait()
	if reads < 10 {
		t.Fatalf("only %d reads", reads)
	}
	// Concurrent overwrites may orphan a blob (documented), never lose the object.
	if _, err := s.Stat(context.Background(), "org1/race"); err != nil {
		t.Fatal(err)
	}
}

// A symlink planted inside the store's directory cannot lead outside it.
func TestLocalDoesNotFollowLinksOutOfItsDirectory(t *testing.T) {
	dir := t.TempDir()
	s := openTestLocal(t, dir)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.m"), []byte(`{"key":"evil/x","content_type":"text/plain","size":6,"blob":"blobs/00/00000000000000000000000000000000"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, objectsDir, "evil.d")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(context.Background(), "evil/x"); err == nil {
		t.Fatal("read a metadata file through a link out of the store")
	}
	if _, err := s.Put(context.Background(), "evil/y", strings.NewReader("pwned"), PutOptions{}); err == nil {
		t.Fatal("wrote through a link out of the store")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("the outside directory holds %d entries", len(entries))
	}
}

func TestLocalRemovesStaleTemporaryFilesAtOpen(t *testing.T) {
	dir := t.TempDir()
	openTestLocal(t, dir).Close()
	stale, fresh := filepath.Join(dir, tmpDir, "stale.m"), filepath.Join(dir, tmpDir, "fresh.m")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	openTestLocal(t, dir)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale temp file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("a write in progress was removed: %v", err)
	}
}

func TestLocalDeletePrunesEmptyDirectoriesOnly(t *testing.T) {
	dir := t.TempDir()
	s := openTestLocal(t, dir)
	mustPut(t, s, "org1/a/b/c", "x", PutOptions{})
	mustPut(t, s, "org1/keep", "x", PutOptions{})
	if err := s.Delete(context.Background(), "org1/a/b/c"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, objectsDir, "org1.d", "a.d")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("empty directories kept: %v", err)
	}
	if got := mustGet(t, s, "org1/keep"); got != "x" {
		t.Fatal("a sibling was lost")
	}
	mustPut(t, s, "org1/a/b/c", "again", PutOptions{})
	if got := mustGet(t, s, "org1/a/b/c"); got != "again" {
		t.Fatal("cannot write again after pruning")
	}
}

func TestLocalHealthReportsAnUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		// Root writes through any permission; a removed directory stands in.
		dir := t.TempDir()
		s := openTestLocal(t, dir)
		if err := os.RemoveAll(filepath.Join(dir, objectsDir)); err != nil {
			t.Fatal(err)
		}
		if err := s.Health(context.Background()); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("health without its directory: %v", err)
		}
		return
	}
	dir := t.TempDir()
	s := openTestLocal(t, dir)
	if err := os.Chmod(filepath.Join(dir, tmpDir), 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, tmpDir), 0o700) })
	if err := s.Health(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("health of a read-only store: %v", err)
	}
}

func TestLocalListSkipsWhatIsNotAnObject(t *testing.T) {
	dir := t.TempDir()
	s := openTestLocal(t, dir)
	mustPut(t, s, "org1/a", "x", PutOptions{})
	for _, stray := range []string{"org1.d/notes.txt", "org1.d/b", "stray.m"} {
		if err := os.WriteFile(filepath.Join(dir, objectsDir, filepath.FromSlash(stray)), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	keys, _ := listAll(t, s, "", 0)
	if fmt.Sprint(keys) != "[org1/a]" {
		t.Fatalf("keys = %v", keys)
	}
	// stray.m is named like the key "stray" but its content is not an
	// object's: reported as unavailable, never served as one.
	if _, err := s.Stat(context.Background(), "stray"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("stat of a stray file: %v", err)
	}
}
