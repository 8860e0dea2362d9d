package bench

import (
	"context"
	"crypto/sha256"
	"os"
	"testing"
	"time"

	"github.com/referto/referto/cmd/referto/synth"
	"github.com/referto/referto/replay"
)

// BenchmarkVerifySeason verifies a small generated season as referto
// verify --season does (every export linked, hashed, strictly decoded and
// folded, every draw re-run, every publication re-derived, every
// checkpoint's signature and root checked, the season ranked), beside
// SHA-256 over the same bytes, the floor:
//
//	go test -run '^$' -bench VerifySeason -count 6 ./cmd/referto/bench/ | tee new.txt
//	benchstat old.txt new.txt
//
// On a machine other work shares, read cpu-ns/event (the process's CPU
// time, both cores together) rather than the wall time.
func BenchmarkVerifySeason(b *testing.B) {
	dir := b.TempDir()
	g, err := synth.GenerateSeason(context.Background(), synth.SeasonOptions{Dir: dir, Tournaments: 40, Events: 20_000, Season: "2024", Venues: 4, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("verify", func(b *testing.B) {
		b.SetBytes(g.Bytes)
		cpu0, _ := synth.CPUTime()
		for b.Loop() {
			r, err := replay.VerifySeasonFiles(context.Background(), replay.SeasonFileOptions{Dir: dir})
			if err != nil {
				b.Fatal(err)
			}
			if !r.OK() || r.Events != g.Events {
				b.Fatalf("verified %d of %d events, %d exports failed", r.Events, g.Events, len(r.Failed))
			}
		}
		reportCPU(b, cpu0, g.Events)
	})
	b.Run("sha256", func(b *testing.B) {
		files, err := replay.SeasonFiles(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(g.Bytes)
		cpu0, _ := synth.CPUTime()
		for b.Loop() {
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				sha256.Sum256(data)
			}
		}
		reportCPU(b, cpu0, g.Events)
	})
}

// reportCPU reports the process's CPU time since cpu0 per event of each
// of the b.N operations.
func reportCPU(b *testing.B, cpu0 time.Duration, events int64) {
	if cpu1, ok := synth.CPUTime(); ok && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N)/float64(events), "cpu-ns/event")
	}
}
