/* errorkb lookup page: sends the paste to the worker and shows the answers.
 * The paste is only ever shown with textContent, never parsed as HTML. */
(function () {
  "use strict";
  const form = document.getElementById("errorkb-lookup-form");
  if (!form) return;
  const input = document.getElementById("errorkb-lookup-q");
  const status = document.getElementById("errorkb-lookup-status");
  const list = document.getElementById("errorkb-lookup-results");
  const indexUrl = new URL(form.dataset.index, document.baseURI).href;
  const workerUrl = new URL(form.dataset.worker, document.baseURI).href;
  const MAX_URL_QUERY = 2000;  // longer pastes are searched but not put in the address
  const TIME_LIMIT_MS = 10000;
  let worker = null;
  let jobs = 0;
  let watchdog = null;
  let timer = null;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function formatBytes(n) {
    const units = [["TiB", 1024 ** 4], ["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]];
    for (const [unit, factor] of units) if (Math.abs(n) >= factor) return (n / factor).toFixed(2) + " " + unit;
    return n + " bytes";
  }

  function setStatus(text) { status.textContent = text; }

  function remember(q) {
    const url = new URL(window.location.href);
    if (q.length <= MAX_URL_QUERY) url.searchParams.set("q", q);
    else url.searchParams.delete("q");
    window.history.replaceState(null, "", url.href);
    return q.length <= MAX_URL_QUERY;
  }

  function startWorker() {
    worker = new Worker(workerUrl);
    worker.onmessage = function (event) {
      const answer = event.data;
      if (answer.id !== jobs) return;  // an older search
      clearTimeout(watchdog);
      if (answer.error) setStatus("The search failed: " + answer.error);
      else show(answer.result, answer.ms);
    };
    worker.onerror = function () { setStatus("The search failed to start."); };
  }

  function search(q, fromUser) {
    clearTimeout(timer);
    if (!q.trim()) {
      list.replaceChildren();
      setStatus("");
      return;
    }
    if (!worker) startWorker();
    const shared = fromUser ? remember(q) : true;
    jobs += 1;
    setStatus(jobs === 1 ? "Loading the index and searching..." : "Searching...");
    list.dataset.state = "busy";
    if (!shared) setStatus("Searching... (the paste is too long to keep in the address)");
    clearTimeout(watchdog);
    watchdog = setTimeout(function () {
      worker.terminate();
      worker = null;
      list.dataset.state = "done";
      setStatus("The search took too long and was stopped; paste just the error lines.");
    }, TIME_LIMIT_MS);
    worker.postMessage({ id: jobs, q: q, top: 5, indexUrl: indexUrl });
  }

  function matchedLine(match) {
    const pre = el("pre", "errorkb-result-line");
    const [start, end] = match.span;
    const from = Math.max(0, start - 160);
    const to = Math.min(match.text.length, end + 160);
    pre.append((from > 0 ? "..." : "") + match.text.slice(from, start));
    pre.append(el("mark", "", match.text.slice(start, end)));
    pre.append(match.text.slice(end, to) + (to < match.text.length ? "..." : ""));
    return pre;
  }

  function valuesTable(values) {
    const table = el("table", "errorkb-result-values");
    table.append(el("caption", "", "Values read from your paste"));
    for (const name of Object.keys(values)) {
      const v = values[name];
      const row = el("tr");
      row.append(el("th", "", name));
      let shown = v.text;
      if (v.type === "size" && v.number !== null) shown += " (" + v.number.toLocaleString("en-US") + " bytes, " + formatBytes(v.number) + ")";
      row.append(el("td", "", shown));
      table.append(row);
    }
    return table;
  }

  function show(result, ms) {
    list.replaceChildren();
    const notes = result.notices.slice();
    if (!result.matches.length) notes.unshift("No error in the catalogue matches this paste.");
    else if (!result.matches[0].exact) notes.unshift("No exact match: these are the closest errors, not exact.");
    else notes.unshift(result.matches.length + " error(s) found in " + ms.toFixed(1) + " ms.");
    setStatus(notes.join(" "));
    for (const match of result.matches) {
      const rec = match.record;
      const item = el("li", "errorkb-result" + (match.exact ? " errorkb-exact" : " errorkb-closest"));
      item.dataset.id = rec.id;
      item.dataset.exact = String(match.exact);
      const head = el("p", "errorkb-result-head");
      if (rec.code) head.append(el("code", "errorkb-result-code", rec.code), " ");
      const link = el("a", "errorkb-result-title", rec.title);
      link.href = new URL(rec.url, document.baseURI).href;
      head.append(link, " ", el("span", "errorkb-result-kind", match.exact ? "exact match" : "closest, not exact"));
      item.append(head);
      if (match.exact) {
        const where = "Line " + (match.line + 1) + (match.lines > 1 ? "-" + (match.line + match.lines) : "") + " of your paste:";
        item.append(el("p", "errorkb-result-where", where), matchedLine(match));
        if (Object.keys(match.values).length) item.append(valuesTable(match.values));
      }
      if (match.explanation) {
        const explanation = el("p", "errorkb-result-explanation");
        explanation.append(el("strong", "", "What the numbers say: "), match.explanation.text);
        item.append(explanation);
      }
      if (rec.fixes.length) {
        const label = el("p", "errorkb-result-fixes-label", "First fixes to try ");
        const all = el("a", "", "(all fixes)");
        all.href = new URL(rec.url, document.baseURI).href.replace(/#.*$/, "") + "#fixes";
        label.append(all);
        item.append(label);
        const fixes = el("ol", "errorkb-result-fixes");
        for (const title of rec.fixes) fixes.append(el("li", "", title));
        item.append(fixes);
      }
      list.append(item);
    }
    list.dataset.state = "done";
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    search(input.value, true);
  });
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { search(input.value, true); }, 300);
  });
  const q = new URLSearchParams(window.location.search).get("q");
  if (q) {
    input.value = q;
    search(q, false);
  }
})();
