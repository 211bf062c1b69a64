// The viewer's only script: it refreshes what must stay current. Pages work without it.
"use strict";

// <input type=checkbox data-reload="5">: while ticked, reload the page every 5 s (remembered per page).
for (const box of document.querySelectorAll("input[data-reload]")) {
  const key = "sw-reload:" + location.pathname;
  box.checked = sessionStorage.getItem(key) === "1";
  let timer = null;
  const arm = () => {
    clearTimeout(timer);
    if (box.checked) timer = setTimeout(() => location.reload(), 1000 * Number(box.dataset.reload));
  };
  box.addEventListener("change", () => { sessionStorage.setItem(key, box.checked ? "1" : "0"); arm(); });
  arm();
}

// <section data-metrics="/metrics" data-every="3">: steps/s and batch latency from two scrapes in a row.
function parseMetrics(text) {
  const out = {};
  for (const line of text.split("\n")) {
    if (!line || line[0] === "#") continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/);
    if (!m) continue;
    const labels = m[2] || "";
    out[m[1] + labels] = Number(m[3]);
    out[m[1]] = (out[m[1]] || 0) + Number(m[3]);
  }
  return out;
}

function batchTotals(metrics) {
  let sum = 0, count = 0;
  for (const [name, value] of Object.entries(metrics)) {
    if (!name.includes('route="/api/v1/batch"')) continue;
    if (name.startsWith("sandworld_request_duration_seconds_sum")) sum += value;
    if (name.startsWith("sandworld_request_duration_seconds_count")) count += value;
  }
  return { sum, count };
}

for (const section of document.querySelectorAll("[data-metrics]")) {
  const show = (what, text) => { const el = section.querySelector(`[data-rate="${what}"]`); if (el) el.textContent = text; };
  let last = null;
  const tick = async () => {
    try {
      const response = await fetch(section.dataset.metrics, { cache: "no-store" });
      const now = { at: performance.now(), m: parseMetrics(await response.text()) };
      show("live", String(now.m["sandworld_live_episodes"] ?? 0));
      if (last) {
        const seconds = (now.at - last.at) / 1000;
        const steps = (now.m["sandworld_steps_total"] ?? 0) - (last.m["sandworld_steps_total"] ?? 0);
        show("steps", (steps / seconds).toFixed(1));
        const a = batchTotals(last.m), b = batchTotals(now.m);
        const n = b.count - a.count;
        show("batch", n > 0 ? `${(1000 * (b.sum - a.sum) / n).toFixed(2)} ms over ${n} batches` : "no batches");
      }
      last = now;
    } catch (err) {
      show("steps", "unavailable");
    }
  };
  tick();
  setInterval(tick, 1000 * Number(section.dataset.every || 3));
}
