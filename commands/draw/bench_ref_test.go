//go:build drawref

package draw

// The frozen reference implementations join the benchmarks that compare them with the
// current code (BenchmarkSearchLarge, BenchmarkPrepareLarge), first as before.
func init() {
	searchImpls = append([]searchImpl{{"ref", func(in *bigSearch, places bool) {
		g := in.g
		s := newRefSearcher(&g, in.seats(), in.n)
		s.useClub, s.useRegion, s.usePlace = true, true, places
		s.club, s.region, s.place, s.met = in.club, in.region, in.place, in.met
		s.improve()
	}}}, searchImpls...)
	prepareImpls = append([]prepareImpl{{"ref", refPrepare, refMetBefore}}, prepareImpls...)
}
