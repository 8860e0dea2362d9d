// Live updates (no inline scripts: the pages' CSP). A page that names its
// tournament's stream (data-live-stream) follows it while it is shown: on
// each new seq it reads itself again and swaps in its live parts
// (data-live), except a part holding the field being typed in or a form
// already touched, which waits for the next one. A hidden page closes its
// stream (a browser keeps few connections to one server) and catches up
// when shown again. EventSource reconnects by itself after a stream ends
// (after the retry the server sent), but not after a refusal (an error
// status, a server out of reach at the first try): the page then reads
// itself once and opens a new stream later, waiting longer each time.
(function () {
  const body = document.body;
  const url = body && body.dataset.liveStream;
  if (!url || !window.EventSource || !window.fetch) return;
  let seq = body.dataset.seq || "";
  let busy = false, again = false, src = null, timer = null, wait = 2000;
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
    if (src || timer) return;
    const es = new EventSource(url);
    src = es;
    es.addEventListener("open", () => { wait = 2000; });
    es.addEventListener("seq", (e) => {
      if (e.data !== seq) { seq = e.data; refresh(); }
    });
    es.addEventListener("error", () => {
      if (es.readyState !== EventSource.CLOSED || src !== es) return; // reconnecting by itself
      es.close();
      src = null;
      refresh();
      timer = setTimeout(() => { timer = null; if (!document.hidden) open(); }, wait + Math.random() * wait / 2);
      wait = Math.min(2 * wait, 60000);
    });
  }
  function close() {
    if (timer) { clearTimeout(timer); timer = null; }
    if (src) { src.close(); src = null; }
  }
  document.addEventListener("visibilitychange", () => (document.hidden ? close() : open()));
  window.addEventListener("pagehide", close);
  if (!document.hidden) open();
})();
