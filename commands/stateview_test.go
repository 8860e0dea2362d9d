package commands_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestTournamentViewStaysAsTaken: the whole state of a tournament taken
// at each seq N of a log (projections.Tournament.StateView, with the cut
// commands.NextPhase tells) is unchanged once the fold it was taken of has
// applied the rest of the log, and is what the JSON of the state at N
// decodes to, which is what the pages were shown from. The logs are those
// of every given/when/then file of testdata/decide (draws, results,
// proposals and their confirmations, sanctions and their revocations,
// contestations and their rulings, check-ins, withdrawals) and of a
// simulated rur-2015 tournament played to its final.
func TestTournamentViewStaysAsTaken(t *testing.T) {
	var logs [][]events.Envelope
	datadriven.Walk(t, "testdata/decide", func(t *testing.T, path string) {
		h := &harness{t: t}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "new" && len(h.envs) > 0 {
				logs = append(logs, h.envs)
			}
			return h.run(t, d)
		})
		if len(h.envs) > 0 {
			logs = append(logs, h.envs)
		}
	})
	played, _ := playGolden(t, goldenTournament{preset: "rur-2015", players: 40, clubs: 6, regns: 3})
	logs = append(logs, played.envs)

	views := 0
	for _, envs := range logs {
		// Every seq of a short log; a long one's every 11th.
		step := max(1, len(envs)/40)
		for n := 1; n < len(envs); n += step {
			st, err := projections.Fold(envs[0].Tournament, envs, uint64(n))
			if err != nil {
				t.Fatal(err)
			}
			v := st.StateView()
			v.Next = commands.NextPhase(st)
			taken, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, env := range envs[n:] {
				ev, err := events.Decode(env)
				if err != nil {
					t.Fatal(err)
				}
				if err := st.Apply(env, ev, nil); err != nil {
					t.Fatal(err)
				}
			}
			after, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, taken) {
				t.Fatalf("tournament %s: the view taken at seq %d changed once seq %d was applied:\n got %s\nwant %s",
					st.ID, n, st.Seq, after, taken)
			}
			var decoded projections.TournamentView
			if err := json.Unmarshal(taken, &decoded); err != nil {
				t.Fatal(err)
			}
			if got, want := emptiedAsNil(v), emptiedAsNil(decoded); !reflect.DeepEqual(got, want) {
				t.Fatalf("tournament %s at seq %d: the view is not what its JSON decodes to:\n got %+v\nwant %+v", st.ID, n, got, want)
			}
			views++
		}
	}
	if views < 500 {
		t.Errorf("%d views checked; the logs should give at least 500", views)
	}
}

// emptiedAsNil is a deep copy of v whose empty slices and maps are nil:
// JSON, which leaves them out (omitempty), does not tell them apart, nor
// does a page.
func emptiedAsNil(v projections.TournamentView) projections.TournamentView {
	out := reflect.New(reflect.TypeOf(v)).Elem()
	emptyAsNil(out, reflect.ValueOf(v))
	return out.Interface().(projections.TournamentView)
}

func emptyAsNil(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			dst.Set(reflect.New(src.Type().Elem()))
			emptyAsNil(dst.Elem(), src.Elem())
		}
	case reflect.Struct:
		for i := range src.NumField() {
			if !dst.Field(i).CanSet() { // a time.Time: compared as it is
				dst.Set(src)
				return
			}
		}
		for i := range src.NumField() {
			emptyAsNil(dst.Field(i), src.Field(i))
		}
	case reflect.Slice:
		if src.Len() > 0 {
			dst.Set(reflect.MakeSlice(src.Type(), src.Len(), src.Len()))
			for i := range src.Len() {
				emptyAsNil(dst.Index(i), src.Index(i))
			}
		}
	case reflect.Map:
		if src.Len() > 0 {
			dst.Set(reflect.MakeMapWithSize(src.Type(), src.Len()))
			for it := src.MapRange(); it.Next(); {
				e := reflect.New(src.Type().Elem()).Elem()
				emptyAsNil(e, it.Value())
				dst.SetMapIndex(it.Key(), e)
			}
		}
	default:
		dst.Set(src)
	}
}
