// The venue screen: the round's clock ticks until the round's last report, and the panels (tables,
// latest results, standings) take turns when there is more than one, each
// shown for #panels' data-rotate seconds. The heading (round, clock,
// reports in) and the panels are live parts (live.js) that are replaced as
// the tournament moves on, so both are looked up afresh at every tick.
(function () {
  function tick() {
    const clock = document.getElementById("clock");
    if (!clock) return;
    const since = Date.parse(clock.dataset.since);
    const minutes = parseInt(clock.dataset.minutes || "0", 10);
    // Once every report is in, the clock stands at the last one.
    const until = clock.dataset.until ? Date.parse(clock.dataset.until) : Date.now();
    let s = Math.max(0, Math.floor((until - since) / 1000));
    let prefix = "";
    if (minutes > 0) { s = Math.max(0, minutes * 60 - s); prefix = clock.dataset.left + " "; }
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
    const text = prefix + h + ":" + String(m).padStart(2, "0") + ":" + String(sec).padStart(2, "0");
    const el = clock.querySelector(".ticks");
    if (el) el.textContent = text;
  }
  let turn = 0;
  function rotate() {
    const panels = document.querySelectorAll("#panels .panel");
    panels.forEach((p, i) => p.classList.toggle("shown", i === turn % panels.length));
    turn++;
  }
  const holder = document.getElementById("panels");
  const every = Math.max(1, parseInt((holder && holder.dataset.rotate) || "12", 10) || 12);
  tick(); rotate();
  setInterval(tick, 1000);
  setInterval(rotate, every * 1000);
  // Swapped in: show the same turn again, and the clock at once.
  document.addEventListener("referto:live", () => { turn = Math.max(turn - 1, 0); rotate(); tick(); });
})();
