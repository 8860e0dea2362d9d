package checkpoint_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events/checkpoint"
)

// seedReader is a deterministic byte source: the fuzz key, and so the
// corpus's signed notes, are the same in every run.
type seedReader struct{ n byte }

func (r *seedReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.n
		r.n = r.n*31 + 7
	}
	return len(p), nil
}

// fuzzKeys generates the fuzz key pair and a note it signed.
func fuzzKeys(f *testing.F) (note.Verifier, string, string) {
	skey, vkey, err := note.GenerateKey(&seedReader{1}, "referto.fuzz")
	if err != nil {
		f.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		f.Fatal(err)
	}
	verifier, err := checkpoint.NewVerifier(vkey)
	if err != nil {
		f.Fatal(err)
	}
	root := sha256.Sum256([]byte("root"))
	signed, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin("raduno-bo-2026"), Size: 1234, Root: root[:]}, signer)
	if err != nil {
		f.Fatal(err)
	}
	return verifier, vkey, signed
}

// checkClassified asserts a refusal is one of the package's sentinels.
func checkClassified(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, checkpoint.ErrFormat) && !errors.Is(err, checkpoint.ErrSignature) {
		t.Fatalf("unclassified error %T: %v", err, err)
	}
}

// FuzzParseText: a note body parses into a checkpoint whose text parses to
// the same checkpoint, or is ErrFormat.
func FuzzParseText(f *testing.F) {
	_, _, signed := fuzzKeys(f)
	text, _, _ := strings.Cut(signed, "\n\n")
	f.Add(text + "\n")
	f.Add("referto/t\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n")
	f.Add("referto/t\n18446744073709551616\nAAAA\n")
	f.Add("referto/t\n-1\n\n")
	f.Add("\n\n\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := checkpoint.ParseText(text)
		if err != nil {
			if !errors.Is(err, checkpoint.ErrFormat) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
			return
		}
		if c.Origin == "" || len(c.Root) != 32 {
			t.Fatalf("accepted %q as %+v", text, c)
		}
		again, err := checkpoint.ParseText(c.Text())
		if err != nil || again.Origin != c.Origin || again.Size != c.Size || !bytes.Equal(again.Root, c.Root) {
			t.Fatalf("%+v renders as %q, which parses as %+v, %v", c, c.Text(), again, err)
		}
	})
}

// FuzzOpenUnverified: any bytes either parse as a checkpoint (and the name
// of the key claiming it) or are ErrFormat. Never a panic.
func FuzzOpenUnverified(f *testing.F) {
	_, _, signed := fuzzKeys(f)
	f.Add([]byte(signed))
	f.Add([]byte(strings.Replace(signed, "— ", "", 1)))
	f.Add([]byte("referto/t\n1\nAAAA\n\n"))
	f.Add([]byte("\n\n— "))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, signed []byte) {
		c, name, err := checkpoint.OpenUnverified(signed)
		if err != nil {
			checkClassified(t, err)
			return
		}
		if c.Origin == "" || len(c.Root) != 32 || strings.Contains(name, " ") {
			t.Fatalf("accepted %q as %+v by %q", signed, c, name)
		}
	})
}

// FuzzOpen: Open with the fuzz key accepts only the note that key signed.
// The fuzzer cannot forge an Ed25519 signature, so any input Open accepts
// must carry the signed text and parse to the signed checkpoint; everything
// else is ErrSignature or ErrFormat.
func FuzzOpen(f *testing.F) {
	v, _, signed := fuzzKeys(f)
	want, err := checkpoint.Open([]byte(signed), v)
	if err != nil {
		f.Fatal(err)
	}
	text, sig, _ := strings.Cut(signed, "\n\n")
	text += "\n"
	f.Add([]byte(signed))
	f.Add([]byte(strings.Replace(signed, "1234", "1235", 1)))
	f.Add([]byte(text + "\n" + sig))
	f.Add([]byte(text + "\n— other.key AAAAAAAA\n" + sig))
	f.Add([]byte(text + "\n" + sig + sig))
	f.Add([]byte(text + "\n— referto.fuzz AAAAAAAA\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		c, err := checkpoint.Open(msg, v)
		if err != nil {
			checkClassified(t, err)
			return
		}
		i := bytes.LastIndex(msg, []byte("\n\n"))
		if i < 0 || string(msg[:i+1]) != text {
			t.Fatalf("Open accepted text the key did not sign: %q", msg)
		}
		if c.Origin != want.Origin || c.Size != want.Size || !bytes.Equal(c.Root, want.Root) {
			t.Fatalf("the signed note opened as %+v, want %+v", c, want)
		}
		// What a keyless verifier reads of it is the same checkpoint.
		u, name, err := checkpoint.OpenUnverified(msg)
		if err != nil || u.Origin != c.Origin || u.Size != c.Size || !bytes.Equal(u.Root, c.Root) {
			t.Fatalf("the signed note reads as %+v (%q, %v) without the key, %+v with it", u, name, err, c)
		}
	})
}

// FuzzNewVerifier: a verifier key string is a verifier or ErrFormat; a
// verifier it accepts under the fuzz key's name and hash is that key (it
// opens the fuzz note), and no other key opens it.
func FuzzNewVerifier(f *testing.F) {
	v, vkey, signed := fuzzKeys(f)
	f.Add(vkey)
	f.Add(vkey + "\n")
	f.Add(" " + vkey + " ")
	f.Add(strings.Replace(vkey, "+", "", 1))
	f.Add("referto.fuzz+00000000+AQ==")
	f.Add("+++")
	f.Add("")
	f.Fuzz(func(t *testing.T, key string) {
		got, err := checkpoint.NewVerifier(key)
		if err != nil {
			if !errors.Is(err, checkpoint.ErrFormat) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
			return
		}
		if got == nil || got.Name() == "" {
			t.Fatalf("NewVerifier(%q) = %v", key, got)
		}
		_, oerr := checkpoint.Open([]byte(signed), got)
		if same := got.Name() == v.Name() && got.KeyHash() == v.KeyHash(); same != (oerr == nil) {
			t.Fatalf("NewVerifier(%q): named %s %08x, opens the fuzz note: %v", key, got.Name(), got.KeyHash(), oerr)
		}
	})
}
