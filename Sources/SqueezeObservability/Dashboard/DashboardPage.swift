/// The coordinator's live page: one document with its styles and script inline (no external
/// assets: the machines running a cluster may have no internet).
///
/// It fetches `api/status` once, then follows `api/events` (server-sent `status` events) and
/// updates the DOM in place. Paths are relative so the page also works behind a proxy at a
/// sub-path. Data only ever reaches the DOM through `textContent` and attributes, never markup.
enum DashboardPage {
    /// The page, served at `GET /`.
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>Squeeze</title>
    <style>
    :root{--bg:#f6f7f9;--card:#fff;--fg:#1c2330;--mute:#667085;--line:#e3e6eb;--accent:#2f6fde;--accent2:#2f6fde22;
      --ok:#1f8a4c;--warn:#b26a00;--bad:#c62f3a;--track:#e9edf2}
    @media (prefers-color-scheme:dark){:root{--bg:#0f1318;--card:#171c23;--fg:#e4e8ee;--mute:#8d97a5;--line:#27303b;
      --accent:#5b9cff;--accent2:#5b9cff26;--ok:#3fbf74;--warn:#e0a040;--bad:#ff6b72;--track:#252d37}}
    *{box-sizing:border-box}
    [hidden]{display:none!important}
    body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
    main{max-width:1200px;margin:0 auto;padding:16px}
    header{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;margin-bottom:12px}
    h1{font-size:22px;margin:0;letter-spacing:.3px}
    h2{font-size:15px;margin:0 0 10px;font-weight:600}
    .mute{color:var(--mute)}
    .num{font-variant-numeric:tabular-nums}
    #conn{margin-left:auto;padding:2px 10px;border-radius:999px;font-size:12px;border:1px solid currentColor}
    #conn[data-state=live]{color:var(--ok)}
    #conn[data-state=reconnecting],#conn[data-state=stale]{color:var(--warn)}
    #conn[data-state=connecting]{color:var(--mute)}
    #summary{display:grid;grid-template-columns:repeat(auto-fill,minmax(132px,1fr));gap:8px;margin-bottom:16px}
    .stat{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px}
    .stat b{display:block;font-size:18px;font-weight:600;font-variant-numeric:tabular-nums;white-space:nowrap}
    .stat span{font-size:12px;color:var(--mute)}
    .stat.warn b{color:var(--warn)}
    section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 14px;margin-bottom:16px}
    .chart{position:relative;height:140px}
    .chart svg{position:absolute;inset:0;width:100%;height:100%;overflow:visible}
    .chart .ymax,.chart .xl,.chart .xr{position:absolute;font-size:11px;color:var(--mute)}
    .chart .ymax{top:-2px;left:4px}.chart .xl{bottom:-18px;left:0}.chart .xr{bottom:-18px;right:0}
    .chartwrap{padding-bottom:18px}
    .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
    table{border-collapse:collapse;width:100%;min-width:720px}
    th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);white-space:nowrap;vertical-align:middle}
    th{font-size:12px;font-weight:600;color:var(--mute)}
    td.r,th.r{text-align:right}
    tr.stale td.c-hb{color:var(--warn);font-weight:600}
    tr.quarantined{background:color-mix(in srgb,var(--bad) 8%,transparent)}
    .badge{display:inline-block;padding:0 8px;border-radius:999px;font-size:12px;line-height:20px;border:1px solid currentColor}
    .b-ok,.b-completed{color:var(--ok)}.b-running{color:var(--accent)}
    .b-quarantined,.b-failed{color:var(--bad)}.b-cancelled{color:var(--warn)}
    .bar{height:8px;background:var(--track);border-radius:4px;overflow:hidden;min-width:60px}
    .bar>i{display:block;height:100%;width:0;background:var(--accent);transition:width .4s ease}
    .busy{display:flex;align-items:center;gap:8px}.busy .bar{width:70px}
    .job{border-top:1px solid var(--line);padding:12px 0}.job:first-of-type{border-top:0;padding-top:4px}
    .job-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 10px}
    .job-src{font-weight:600;overflow-wrap:anywhere;flex:1 1 240px}
    .job-line{display:flex;align-items:center;gap:10px;margin:8px 0}
    .job-line .bar{flex:1;height:10px;border-radius:5px}
    .job-percent{font-weight:600;min-width:54px;text-align:right;font-variant-numeric:tabular-nums}
    .job[data-state=completed] .bar>i{background:var(--ok)}
    .job[data-state=failed] .bar>i{background:var(--bad)}.job[data-state=cancelled] .bar>i{background:var(--warn)}
    dl{display:flex;flex-wrap:wrap;gap:4px 20px;margin:0}
    dl div{display:flex;gap:6px}dt{color:var(--mute)}dd{margin:0;font-variant-numeric:tabular-nums}
    .msg{margin-top:6px;color:var(--bad);white-space:pre-wrap;word-break:break-word}
    .active{list-style:none;margin:8px 0 0;padding:0;font-size:12px}
    .active li{display:grid;grid-template-columns:minmax(0,1fr) 80px 130px;gap:10px;align-items:center;padding:2px 0}
    .active .p{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;direction:rtl;text-align:left}
    .active .bar{height:6px}.active .n{text-align:right;color:var(--mute);font-variant-numeric:tabular-nums}
    .empty{color:var(--mute);padding:8px 0}
    footer{font-size:12px;color:var(--mute);text-align:center}
    @media (max-width:600px){main{padding:10px}#summary{grid-template-columns:repeat(2,1fr)}
      .active li{grid-template-columns:minmax(0,1fr) 60px}.active .n{display:none}.stat b{font-size:16px}
      /* Worker rows become small cards, so the state (quarantined) is never scrolled out of sight. */
      #workers{min-width:0}#workers thead{display:none}
      #workers tr{display:grid;grid-template-columns:1fr 1fr;gap:2px 12px;padding:8px 4px;border-bottom:1px solid var(--line)}
      #workers td{border:0;padding:0;text-align:left;white-space:normal;overflow-wrap:anywhere}
      #workers td::before{content:attr(data-label);display:block;font-size:11px;color:var(--mute)}
      #workers td.c-id{font-weight:600}}
    </style>
    </head>
    <body>
    <main>
    <header><h1>Squeeze</h1><span class="mute" id="version"></span><span id="conn" data-state="connecting">connecting</span></header>
    <div id="summary"></div>
    <section class="chartwrap"><h2>Cluster throughput <span class="mute" id="chart-span"></span></h2>
      <div class="chart" id="chart"><svg viewBox="0 0 600 140" preserveAspectRatio="none" aria-label="throughput chart">
        <line x1="0" y1="0" x2="600" y2="0" stroke="var(--line)" vector-effect="non-scaling-stroke"/>
        <line x1="0" y1="140" x2="600" y2="140" stroke="var(--line)" vector-effect="non-scaling-stroke"/>
        <path id="chart-area" fill="var(--accent2)" stroke="none"/>
        <path id="chart-line" fill="none" stroke="var(--accent)" stroke-width="2" vector-effect="non-scaling-stroke"/>
      </svg><span class="ymax" id="chart-max"></span><span class="xl" id="chart-left"></span><span class="xr">now</span></div>
    </section>
    <section><h2>Workers</h2><div class="scroll"><table id="workers"><thead><tr>
      <th>Worker</th><th>Host</th><th>State</th><th>Busy</th><th class="r">MB/s</th><th class="r">Heartbeat</th>
      <th class="r">Items</th><th>Engines</th><th>Storage</th></tr></thead><tbody></tbody></table></div>
      <div class="empty" id="workers-empty">No workers connected</div></section>
    <section id="jobs"><h2>Jobs</h2><div id="job-list"></div><div class="empty" id="jobs-empty">No jobs yet</div></section>
    <footer id="footer"></footer>
    </main>
    <script>
    "use strict";
    const $ = (id) => document.getElementById(id);
    // Values arrive from the network: anything not a finite number is shown as a dash.
    const num = (v) => (typeof v === "number" && isFinite(v) ? v : null);
    const DASH = "\u2013";
    function bytes(v) {
      v = num(v); if (v === null) return DASH;
      const u = ["B", "kB", "MB", "GB", "TB", "PB"]; let i = 0;
      while (v >= 1000 && i < u.length - 1) { v /= 1000; i++; }
      return i === 0 ? v + " B" : v.toFixed(1) + " " + u[i];
    }
    const mbps = (v) => (num(v) === null ? DASH : v.toFixed(1) + " MB/s");
    function dur(s) {
      s = num(s); if (s === null || s < 0 || s > 1e11) return DASH;
      s = Math.round(s);
      if (s < 60) return s + " s";
      if (s < 3600) return Math.floor(s / 60) + " m " + (s % 60) + " s";
      if (s < 86400) return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " m";
      return Math.floor(s / 86400) + " d " + Math.floor((s % 86400) / 3600) + " h";
    }
    const pct = (v) => (num(v) === null ? DASH : Math.min(Math.max(v, 0), 100).toFixed(1) + "%");
    const str = (v) => (v === null || v === undefined ? "" : String(v));
    function el(tag, cls, text) {
      const e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    }
    // Writes only on change, so unchanged nodes are not touched and nothing flickers.
    function setText(e, t) { t = str(t); if (e.textContent !== t) e.textContent = t; }
    function bar() { const b = el("div", "bar"); b.appendChild(el("i")); return b; }
    function setBar(b, fraction) {
      const f = Math.min(Math.max(num(fraction) || 0, 0), 1), w = (f * 100).toFixed(2) + "%";
      if (b.firstChild.style.width !== w) b.firstChild.style.width = w;
    }
    // Keyed reconciliation: reuse each item's node, drop vanished ones, keep the server's order.
    function reconcile(parent, items, key, make, update) {
      const old = new Map(); for (const n of parent.children) old.set(n.dataset.key, n);
      let prev = null;
      for (const item of items) {
        const k = str(key(item)); let n = old.get(k);
        if (n) old.delete(k); else { n = make(item); n.dataset.key = k; }
        update(n, item);
        const want = prev ? prev.nextSibling : parent.firstChild;
        if (want !== n) parent.insertBefore(n, want);
        prev = n;
      }
      for (const n of old.values()) n.remove();
    }

    const STATS = [["workers", "Workers"], ["busy", "Busy / slots"], ["rate", "Input MB/s"], ["flight", "Items in flight"],
      ["cpu", "Coordinator CPU"], ["uptime", "Uptime"], ["checks", "Results"], ["problems", "Late / rejected"]];
    const statEls = {};
    for (const [k, label] of STATS) {
      const s = el("div", "stat"); statEls[k] = el("b"); s.append(statEls[k], el("span", "", label)); $("summary").appendChild(s);
    }
    function renderSummary(d) {
      const c = d.cluster || {};
      setText($("version"), d.version ? "v" + d.version : "");
      setText(statEls.workers, num(c.workers) ?? DASH);
      setText(statEls.busy, (num(c.busySlots) ?? DASH) + " / " + (num(c.slots) ?? DASH));
      setText(statEls.rate, num(c.megabytesPerSecond) === null ? DASH : c.megabytesPerSecond.toFixed(1));
      setText(statEls.flight, num(c.itemsInFlight) ?? DASH);
      setText(statEls.cpu, num(c.coordinatorCPUSeconds) === null ? DASH : dur(c.coordinatorCPUSeconds));
      setText(statEls.uptime, dur(d.uptimeSeconds));
      setText(statEls.checks, c.resultsChecked ? "checked" : "unchecked");
      // Late results are normal after a retry; malformed or refused ones point at a bad peer.
      const bad = (num(c.malformedMessages) || 0) + (num(c.refusedResults) || 0);
      setText(statEls.problems, (num(c.lateResults) ?? 0) + " / " + bad);
      statEls.problems.parentNode.classList.toggle("warn", bad > 0);
      statEls.problems.parentNode.title = "late " + (num(c.lateResults) ?? 0) + ", malformed " + (num(c.malformedMessages) ?? 0) +
        ", refused " + (num(c.refusedResults) ?? 0);
      document.title = "Squeeze \u00b7 " + mbps(c.megabytesPerSecond);
    }

    function renderChart(d) {
      const pts = (Array.isArray(d.throughput) ? d.throughput : [])
        .filter((p) => p && num(p.t) !== null && num(p.megabytesPerSecond) !== null);
      if (pts.length < 2) {
        $("chart-line").setAttribute("d", ""); $("chart-area").setAttribute("d", "");
        setText($("chart-max"), "waiting for samples"); setText($("chart-left"), ""); setText($("chart-span"), "");
        return;
      }
      const t1 = Math.max(num(d.generatedAt) ?? 0, pts[pts.length - 1].t), t0 = pts[0].t, span = Math.max(t1 - t0, 1);
      const max = Math.max(...pts.map((p) => p.megabytesPerSecond)), top = max > 0 ? max * 1.1 : 1;
      const xy = pts.map((p) => [((p.t - t0) / span) * 600, 140 - (Math.max(p.megabytesPerSecond, 0) / top) * 140]);
      const line = xy.map(([x, y], i) => (i ? "L" : "M") + x.toFixed(1) + " " + y.toFixed(1)).join("");
      $("chart-line").setAttribute("d", line);
      $("chart-area").setAttribute("d", line + "L" + xy[xy.length - 1][0].toFixed(1) + " 140L" + xy[0][0].toFixed(1) + " 140Z");
      const minutes = Math.max(1, Math.round(span / 60));
      setText($("chart-max"), "max " + mbps(max));
      setText($("chart-left"), minutes + " min ago");
      setText($("chart-span"), "\u00b7 last " + minutes + (minutes === 1 ? " minute" : " minutes"));
    }

    function makeWorker() {
      const tr = el("tr"), f = {};
      const cols = [["id", "Worker"], ["host", "Host"], ["state", "State"], ["busy", "Busy"], ["rate", "MB/s"], ["hb", "Heartbeat"],
        ["done", "Items"], ["engines", "Engines"], ["storage", "Storage"]];
      for (const [k, label] of cols) {
        f[k] = el("td", (k === "rate" || k === "hb" || k === "done" ? "r num " : "") + "c-" + k);
        f[k].dataset.label = label; tr.appendChild(f[k]);  // shown as a caption on narrow screens
      }
      f.bar = bar(); f.busyText = el("span", "num"); const b = el("div", "busy"); b.append(f.bar, f.busyText); f.busy.appendChild(b);
      f.badge = el("span", "badge"); f.state.appendChild(f.badge); f.refused = el("span", "mute"); f.state.appendChild(f.refused);
      tr._f = f; return tr;
    }
    function updateWorker(tr, w) {
      const f = tr._f, slots = num(w.slots) ?? 0, busy = num(w.busy) ?? 0, hb = num(w.lastHeartbeatSeconds);
      if (tr.dataset.workerId !== str(w.workerID)) tr.dataset.workerId = str(w.workerID);
      tr.classList.toggle("quarantined", !!w.quarantined);
      tr.classList.toggle("stale", hb !== null && hb > 5);
      setText(f.id, w.workerID); setText(f.host, w.host);
      setBar(f.bar, slots ? busy / slots : 0); setText(f.busyText, busy + " / " + slots);
      setText(f.rate, num(w.megabytesPerSecond) === null ? DASH : w.megabytesPerSecond.toFixed(1));
      setText(f.hb, hb === null ? DASH : (hb < 10 ? hb.toFixed(1) + " s" : dur(hb)) + " ago");
      f.hb.title = hb !== null && hb > 5 ? "no heartbeat for over 5 s" : "";
      setText(f.done, num(w.itemsDone) ?? DASH);
      setText(f.engines, Array.isArray(w.engines) ? w.engines.map(str).join(", ") : DASH);
      setText(f.storage, w.storage ?? DASH);
      const q = !!w.quarantined;
      setText(f.badge, q ? "quarantined" : "ok"); f.badge.className = "badge " + (q ? "b-quarantined" : "b-ok");
      setText(f.refused, num(w.refusedResults) ? " " + w.refusedResults + " refused" : "");
    }

    function makeJob() {
      const a = el("article", "job"), f = {};
      const head = el("div", "job-head");
      f.badge = el("span", "badge"); f.id = el("span", "mute num"); f.src = el("span", "job-src"); f.who = el("span", "mute");
      head.append(f.badge, f.id, f.src, f.who);
      const line = el("div", "job-line"); f.bar = bar(); f.pct = el("span", "job-percent"); line.append(f.bar, f.pct);
      const dl = el("dl");
      for (const [k, label] of [["rate", "Speed"], ["eta", "ETA"], ["ratio", "Ratio"], ["files", "Files"], ["bytes", "Data"],
        ["out", "Output"], ["time", "Elapsed"]]) {
        const d = el("div"); f[k] = el("dd"); d.append(el("dt", "", label), f[k]); dl.appendChild(d); f[k + "Row"] = d;
      }
      f.msg = el("div", "msg"); f.active = el("ul", "active");
      a.append(head, line, dl, f.msg, f.active); a._f = f; return a;
    }
    function updateJob(a, j) {
      const f = a._f, state = str(j.state), running = state === "running";
      if (a.dataset.jobId !== str(j.jobID)) a.dataset.jobId = str(j.jobID);
      if (a.dataset.state !== state) a.dataset.state = state;
      setText(f.badge, state + (j.scanning ? " \u00b7 scanning" : "")); f.badge.className = "badge b-" + state;
      setText(f.id, "#" + str(j.jobID)); setText(f.src, j.source);
      const at = num(j.submittedAt) !== null ? new Date(j.submittedAt * 1000).toLocaleString() : "";
      setText(f.who, [j.submitter ? "by " + j.submitter : "", at].filter(Boolean).join(" \u00b7 "));
      setBar(f.bar, (num(j.percent) ?? 0) / 100); setText(f.pct, pct(j.percent));
      setText(f.rate, mbps(j.megabytesPerSecond));
      setText(f.eta, running ? (j.scanning ? "scanning\u2026" : dur(j.etaSeconds)) : DASH);
      f.etaRow.hidden = !running;
      setText(f.ratio, num(j.ratio) === null ? DASH : (j.ratio * 100).toFixed(1) + " %");
      const failed = num(j.filesFailed) || 0;
      setText(f.files, (num(j.filesDone) ?? DASH) + " / " + (num(j.files) ?? DASH) + (j.scanning ? "+" : "") +
        (failed ? " (" + failed + " failed)" : ""));
      f.files.style.color = failed ? "var(--bad)" : "";
      setText(f.bytes, bytes(j.bytesDone) + " / " + bytes(j.bytes) + (j.scanning ? "+" : ""));
      setText(f.out, bytes(j.bytesOut)); f.outRow.hidden = num(j.bytesOut) === null;
      setText(f.time, dur(j.seconds)); f.timeRow.hidden = num(j.seconds) === null;
      setText(f.msg, j.message && state !== "running" && state !== "completed" ? j.message : ""); f.msg.hidden = !f.msg.textContent;
      const files = running && Array.isArray(j.active) ? j.active.filter((x) => x && typeof x === "object") : [];
      reconcile(f.active, files, (x) => x.path, () => {
        const li = el("li"); li._p = el("span", "p"); li._b = bar(); li._n = el("span", "n");
        li.append(li._p, li._b, li._n); return li;
      }, (li, x) => {
        // A leading LRM keeps the rtl ellipsis (which shows the file name end) from reordering punctuation.
        setText(li._p, "\u200e" + str(x.path) + "\u200e"); li._p.title = str(x.path);
        const total = num(x.total), done = num(x.done);
        setBar(li._b, total ? (done || 0) / total : 0); setText(li._n, bytes(done) + " / " + bytes(total));
      });
    }

    let last = null;
    function render(d) {
      if (!d || typeof d !== "object") return;
      last = Date.now();
      renderSummary(d); renderChart(d);
      const workers = (Array.isArray(d.workers) ? d.workers : []).filter((w) => w && typeof w === "object");
      reconcile(document.querySelector("#workers tbody"), workers, (w) => w.workerID, makeWorker, updateWorker);
      $("workers-empty").hidden = workers.length > 0;
      const jobs = (Array.isArray(d.jobs) ? d.jobs : []).filter((j) => j && typeof j === "object");
      reconcile($("job-list"), jobs, (j) => j.jobID, makeJob, updateJob);
      $("jobs-empty").hidden = jobs.length > 0;
      setText($("footer"), "updated " + (num(d.generatedAt) ? new Date(d.generatedAt * 1000).toLocaleTimeString() : DASH));
    }
    function setConn(state) { const c = $("conn"); if (c.dataset.state !== state) { c.dataset.state = state; c.textContent = state; } }

    let source = null;
    function connect() {
      // EventSource reconnects by itself after a network error; only a CLOSED one needs a new instance.
      source = new EventSource("api/events");
      source.addEventListener("open", () => setConn("live"));
      source.addEventListener("status", (e) => {
        try { render(JSON.parse(e.data)); setConn("live"); } catch (err) { console.warn("bad status event", err); }
      });
      source.addEventListener("error", () => {
        setConn("reconnecting");
        if (source.readyState === EventSource.CLOSED) { source.close(); setTimeout(connect, 3000); }
      });
    }
    fetch("api/status", { cache: "no-store" }).then((r) => (r.ok ? r.json() : null)).then((d) => { if (d) render(d); })
      .catch(() => {});
    connect();
    // Events come about once a second; a quiet stream for long means the data shown is old.
    setInterval(() => { if ($("conn").dataset.state === "live" && last && Date.now() - last > 5000) setConn("stale"); }, 1000);
    </script>
    </body>
    </html>
    """#
}
