package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// naiveRoot is RFC 6962 §2.1 written out: MTH(D[n]) splits at the largest
// power of two below n.
func naiveRoot(leaves [][]byte) []byte {
	switch len(leaves) {
	case 0:
		h := sha256.Sum256(nil)
		return h[:]
	case 1:
		h := sha256.Sum256(append([]byte{0}, leaves[0]...))
		return h[:]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := naiveRoot(leaves[:k]), naiveRoot(leaves[k:])
	h := sha256.Sum256(append(append([]byte{1}, l...), r...))
	return h[:]
}

// memStore keeps every node the tree reports.
type memStore map[NodeID][]byte

func (m memStore) get(ids []NodeID) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		h, ok := m[id]
		if !ok {
			return nil, fmt.Errorf("%w: node %+v not stored", ErrNode, id)
		}
		out[i] = h
	}
	return out, nil
}

// TestHashesAreRFC6962: a leaf of any length, copied beside its prefix on
// the stack or not, and an inner node hash as RFC 6962 §2.1 says.
func TestHashesAreRFC6962(t *testing.T) {
	for _, n := range []int{0, 1, 300, leafBuf - 2, leafBuf - 1, leafBuf, leafBuf + 1, 70_000} {
		line := bytes.Repeat([]byte{'x'}, n)
		want := sha256.Sum256(append([]byte{0}, line...))
		if got := LeafHash(line); !bytes.Equal(got, want[:]) {
			t.Errorf("leaf of %d bytes: %x, want %x", n, got, want)
		}
	}
	for _, n := range [][2]int{{32, 32}, {31, 32}, {0, 0}, {32, 40}} {
		l, r := bytes.Repeat([]byte{'l'}, n[0]), bytes.Repeat([]byte{'r'}, n[1])
		want := sha256.Sum256(append(append([]byte{1}, l...), r...))
		if got := HashChildren(l, r); !bytes.Equal(got, want[:]) {
			t.Errorf("node of children of %d and %d bytes: %x, want %x", n[0], n[1], got, want)
		}
	}
}

func TestTreeProofsAndResume(t *testing.T) {
	store := memStore{}
	tree := NewTree()
	var leaves [][]byte
	var roots [][]byte
	for i := range 33 {
		line := []byte(fmt.Sprintf(`{"id":"t/%d","seq":%d}`, i+1, i+1))
		leaves = append(leaves, line)
		if err := tree.Append(line, func(id NodeID, h []byte) { store[id] = h }); err != nil {
			t.Fatal(err)
		}
		if got, want := tree.Root(), naiveRoot(leaves); !bytes.Equal(got, want) {
			t.Fatalf("size %d: root %x, want %x", i+1, got, want)
		}
		roots = append(roots, tree.Root())
	}
	for size := uint64(1); size <= 33; size++ {
		root, err := RootAt(size, store.get)
		if err != nil || !bytes.Equal(root, roots[size-1]) {
			t.Fatalf("RootAt(%d) = %x, %v", size, root, err)
		}
		for index := range size {
			path, err := InclusionProof(index, size, store.get)
			if err != nil {
				t.Fatal(err)
			}
			if err := VerifyInclusion(index, size, LeafHash(leaves[index]), path, root); err != nil {
				t.Fatalf("inclusion of %d in %d: %v", index, size, err)
			}
			// A changed leaf does not verify.
			if VerifyInclusion(index, size, LeafHash(append([]byte("x"), leaves[index]...)), path, root) == nil {
				t.Fatalf("a changed leaf %d verified in %d", index, size)
			}
		}
		for size1 := uint64(1); size1 <= size; size1++ {
			path, err := ConsistencyProof(size1, size, store.get)
			if err != nil {
				t.Fatal(err)
			}
			if err := VerifyConsistency(size1, size, path, roots[size1-1], root); err != nil {
				t.Fatalf("consistency %d → %d: %v", size1, size, err)
			}
		}
	}
	// A tree resumed from storage continues exactly.
	resumed, err := Resume(20, store.get)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves[20:] {
		if err := resumed.Append(l, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(resumed.Root(), roots[32]) {
		t.Error("a resumed tree does not reach the same root")
	}
	// The last leaf, what the next event links to, survives a resume.
	if h := tree.Head(); !bytes.Equal(h.Last, LeafHash(leaves[32])) || h.Size != 33 || !bytes.Equal(h.Root, roots[32]) {
		t.Errorf("head %+v", h)
	}
	for size := uint64(1); size <= 33; size++ {
		r, err := Resume(size, store.get)
		if err != nil || !bytes.Equal(r.Last(), LeafHash(leaves[size-1])) {
			t.Fatalf("resumed at %d: last leaf %x, %v", size, r.Last(), err)
		}
	}
	if NewTree().Last() != nil {
		t.Error("the empty tree has a last leaf")
	}
	if _, err := InclusionProof(5, 5, store.get); !errors.Is(err, ErrNode) {
		t.Errorf("proof of a leaf outside the tree: %v", err)
	}
}

func TestSignedCheckpoints(t *testing.T) {
	dir := t.TempDir()
	keys, err := LoadOrCreateKeys(dir, "referto.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{SignerFile, VerifierFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", f, fi.Mode().Perm(), err)
		}
	}
	again, err := LoadOrCreateKeys(dir, "ignored", nil)
	if err != nil || again.VerifierKey != keys.VerifierKey {
		t.Fatalf("keys are not kept across starts: %v", err)
	}
	c := Checkpoint{Origin: Origin("bo-2026"), Size: 42, Root: bytes.Repeat([]byte{7}, 32)}
	signed, err := Sign(c, keys.Signer)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(signed, "referto/bo-2026\n42\n") || !strings.Contains(signed, "\n\n— referto.test ") {
		t.Errorf("signed note:\n%s", signed)
	}
	got, err := Open([]byte(signed), keys.Verifier)
	if err != nil || got.Size != 42 || !bytes.Equal(got.Root, c.Root) || got.Origin != c.Origin {
		t.Fatalf("Open = %+v, %v", got, err)
	}
	if u, name, err := OpenUnverified([]byte(signed)); err != nil || name != "referto.test" || u.Size != 42 {
		t.Errorf("OpenUnverified = %+v %q %v", u, name, err)
	}
	// Forgeries: another size under the same signature; another key.
	forged := strings.Replace(signed, "\n42\n", "\n43\n", 1)
	if _, err := Open([]byte(forged), keys.Verifier); !errors.Is(err, ErrSignature) {
		t.Errorf("a changed checkpoint verified: %v", err)
	}
	other, _ := LoadOrCreateKeys(t.TempDir(), "referto.test", nil)
	if _, err := Open([]byte(signed), other.Verifier); !errors.Is(err, ErrSignature) {
		t.Errorf("another key verified it: %v", err)
	}
	if _, err := Open([]byte("not a note"), keys.Verifier); err == nil {
		t.Error("garbage opened")
	}
	if _, err := ParseText("o\nx\nroot\n"); !errors.Is(err, ErrFormat) {
		t.Errorf("bad size parsed: %v", err)
	}
}

// TestTextBytes pins the note body byte for byte (every checkpoint already
// signed must verify) and what ParseText says of each malformed line, which
// verify prints.
func TestTextBytes(t *testing.T) {
	c := Checkpoint{Origin: Origin("bo-2026"), Size: 42, Root: bytes.Repeat([]byte{7}, 32)}
	if got, want := c.Text(), "referto/bo-2026\n42\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	root := "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="
	for _, tc := range []struct{ text, want string }{
		{"referto/t\n7\n" + root + "\n", ""},
		{"referto/t\n7\n" + root + "\nother data\n", ""},
		{"referto/t\n7\n" + root, "checkpoint: malformed: want origin, size and root lines"},
		{"\n7\n" + root + "\n", "checkpoint: malformed: want origin, size and root lines"},
		{"referto/t\n-1\n" + root + "\n", `checkpoint: malformed: size "-1"`},
		{"referto/t\n7\nAAAA\n", `checkpoint: malformed: root "AAAA"`},
		{"referto/t\n7\nnot base64\n", `checkpoint: malformed: root "not base64"`},
	} {
		got, err := ParseText(tc.text)
		if tc.want == "" {
			if err != nil || got.Origin != "referto/t" || got.Size != 7 || !bytes.Equal(got.Root, c.Root) {
				t.Errorf("ParseText(%q) = %+v, %v", tc.text, got, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrFormat) {
			t.Errorf("ParseText(%q): got %v, want %s", tc.text, err, tc.want)
		}
	}
}
