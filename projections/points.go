package projections

import (
	"strconv"
)

// Points are tournament points in integer hundredths. They render as JSON
// numbers with at most two decimals (162, 112.5, 61.07), computed without
// floating point.
type Points int64

// MarshalJSON renders the value in points with at most two decimals.
func (p Points) MarshalJSON() ([]byte, error) {
	return []byte(p.String()), nil
}

// String renders the value in points with at most two decimals.
func (p Points) String() string {
	v := int64(p)
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v/100, 10)
	if c := v % 100; c != 0 {
		frac := strconv.FormatInt(c+100, 10)[1:] // two digits
		if frac[1] == '0' {
			frac = frac[:1]
		}
		s += "." + frac
	}
	if neg {
		s = "-" + s
	}
	return s
}

// UnmarshalJSON reads a JSON number with at most two decimals.
func (p *Points) UnmarshalJSON(b []byte) error {
	s := string(b)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	whole, frac, _ := cut(s, '.')
	if len(frac) > 2 {
		return &strconv.NumError{Func: "Points", Num: string(b), Err: strconv.ErrSyntax}
	}
	for len(frac) < 2 {
		frac += "0"
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return err
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return err
	}
	v := w*100 + f
	if neg {
		v = -v
	}
	*p = Points(v)
	return nil
}

func cut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
