// The venue screen: the round's clock ticks, and the panels (tables,
// latest results, standings) take turns when there is more than one.
(function () {
  const clock = document.getElementById("clock");
  function tick() {
    if (!clock) return;
    const since = Date.parse(clock.dataset.since);
    const minutes = parseInt(clock.dataset.minutes || "0", 10);
    let s = Math.max(0, Math.floor((Date.now() - since) / 1000));
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
  tick(); rotate();
  setInterval(tick, 1000);
  setInterval(rotate, 12000);
  document.addEventListener("referto:live", () => { turn = Math.max(turn - 1, 0); rotate(); });
})();
