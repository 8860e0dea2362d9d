package apitest

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Phases are the phases of an accepted command the server measures
// (referto_command_phase_seconds).
var Phases = []string{"lock_wait", "decide", "append", "ack_to_unlock", "record"}

// MetricSums reads the sums and counts of the histograms in a /metrics
// text: each by name summed over its labels ("…_sum", "…_count"), and the
// command phases' by phase as well
// (`referto_command_phase_seconds{phase="append"}_sum`).
func MetricSums(text []byte) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		name, labels, _ := strings.Cut(name, "{")
		if !strings.HasSuffix(name, "_sum") && !strings.HasSuffix(name, "_count") {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(rest, &v); err != nil {
			continue
		}
		out[name] += v
		if p, ok := strings.CutPrefix(name, "referto_command_phase_seconds"); ok {
			out["referto_command_phase_seconds{"+strings.TrimSuffix(labels, "}")+"}"+p] += v
		}
	}
	return out
}

// MeanMillis is the mean in milliseconds of histogram name's observations
// between two MetricSums, 0 when there were none.
func MeanMillis(before, after map[string]float64, name string) float64 {
	if c := after[name+"_count"] - before[name+"_count"]; c > 0 {
		return 1000 * (after[name+"_sum"] - before[name+"_sum"]) / c
	}
	return 0
}

// PhaseName is the histogram name of a command phase, for MeanMillis.
func PhaseName(phase string) string { return `referto_command_phase_seconds{phase="` + phase + `"}` }
