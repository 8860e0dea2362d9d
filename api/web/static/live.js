// Live updates (no inline scripts: the pages' CSP). A page that names its
// tournament's stream (data-live-stream) follows it while it is shown: on
// each new seq it reads itself again and swaps in its live parts
// (data-live), except a part holding the field being typed in or a form
// already touched, which waits for the next one. A hidden page closes its
// stream (a browser keeps few connections to one server) and catches up
// when shown again. EventSource reconnects by itself.
(function () {
  const body = document.body;
  const url = body && body.dataset.liveStream;
  if (!url || !window.EventSource || !window.fetch) return;
  let seq = body.dataset.seq || "";
  let busy = false, again = false, src = null;
  document.addEventListener("input", (e) => {
    const f = e.target.closest("form");
    if (f) f.dataset.dirty = "1";
  });
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const res = await fetch(location.href, { headers: { "X-Live": "1" }, credentials: "same-origin" });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      document.querySelectorAll("[data-live][id]").forEach((el) => {
        const next = doc.getElementById(el.id);
        if (!next) return;
        if (el.contains(document.activeElement) && document.activeElement !== document.body) return;
        if (el.querySelector("form[data-dirty]")) return;
        el.replaceWith(next);
      });
      if (doc.body && doc.body.dataset.seq) seq = doc.body.dataset.seq;
      document.dispatchEvent(new CustomEvent("referto:live"));
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  function open() {
    if (src) return;
    src = new EventSource(url);
    src.addEventListener("seq", (e) => {
      if (e.data !== seq) { seq = e.data; refresh(); }
    });
  }
  function close() {
    if (src) { src.close(); src = null; }
  }
  document.addEventListener("visibilitychange", () => (document.hidden ? close() : open()));
  window.addEventListener("pagehide", close);
  if (!document.hidden) open();
})();
