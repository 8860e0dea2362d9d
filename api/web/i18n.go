package web

import "net/http"

// lang is the page language: ?lang=, then the cookie, then Accept-Language
// preferring English only when asked first; Italian otherwise.
func lang(r *http.Request) string {
	for _, l := range []string{r.URL.Query().Get("lang"), cookieValue(r, langCookie)} {
		if _, ok := languages[l]; ok {
			return l
		}
	}
	if al := r.Header.Get("Accept-Language"); len(al) >= 2 && al[:2] == "en" {
		return "en"
	}
	return "it"
}

func cookieValue(r *http.Request, name string) string {
	if c, err := r.Cookie(name); err == nil {
		return c.Value
	}
	return ""
}
