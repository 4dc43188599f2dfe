/* errorkb lookup page: sends the paste to the worker and shows the answers.
 * The paste is only ever shown with textContent, never parsed as HTML, and never leaves the
 * browser: it arrives in the address's fragment (#q=), which is not sent to servers, or from
 * the landing page's box through session storage; an old ?q= address is rewritten at once. */
(function () {
  "use strict";
  const form = document.getElementById("errorkb-lookup-form");
  if (!form) return;
  const input = document.getElementById("errorkb-lookup-q");
  const status = document.getElementById("errorkb-lookup-status");
  const list = document.getElementById("errorkb-lookup-results");
  const missing = document.getElementById("errorkb-lookup-missing");
  const triage = document.getElementById("errorkb-lookup-triage");
  const indexUrl = new URL(form.dataset.index, document.baseURI).href;
  const workerUrl = new URL(form.dataset.worker, document.baseURI).href;
  // The index's record URLs are relative to the site's root, which is not this page's folder
  // under every builder (dirhtml puts the page in a folder of its own).
  const root = new URL(form.dataset.root || "./", document.baseURI);
  const report = form.dataset.report;
  const HANDED = "errorkb-paste";  // session storage key of the landing page's box
  const MAX_FRAGMENT = 200000;  // longer pastes are searched but not kept in the address
  const MAX_REPORT = 4000;  // characters of the paste prefilled in the issue form (its end)
  // A search is linear in the paste; this only stops one that cannot finish (a slow machine
  // given the largest paste takes a few seconds).
  const TIME_LIMIT_MS = 10000;
  const TIME_PER_MB_MS = 2000;
  let worker = null;
  let jobs = 0;
  let watchdog = null;
  let timer = null;
  let shown = null;  // the paste of the address's fragment
  let searched = "";  // the paste of the latest search

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function setStatus(text) { status.textContent = text; }

  function fragmentPaste() {
    const hash = window.location.hash;
    if (!hash.startsWith("#q=")) return null;
    try {
      return decodeURIComponent(hash.slice(3));
    } catch (error) {
      return null;
    }
  }

  // Keeps the paste in the address's fragment, so the search can be shared; false if too long.
  function remember(q) {
    const url = new URL(window.location.href);
    url.search = "";
    const encoded = encodeURIComponent(q);
    url.hash = encoded.length <= MAX_FRAGMENT ? "q=" + encoded : "";
    shown = encoded.length <= MAX_FRAGMENT ? q : null;
    window.history.replaceState(null, "", url.href);
    return shown !== null;
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

  function search(q) {
    clearTimeout(timer);
    missing.hidden = true;
    if (!q.trim()) {
      list.replaceChildren();
      setStatus("");
      remember("");
      return;
    }
    if (!worker) startWorker();
    const kept = remember(q);
    searched = q;
    jobs += 1;
    setStatus(jobs === 1 ? "Loading the index and searching..." : "Searching...");
    if (!kept) setStatus("Searching... (the paste is too long to keep in the address)");
    list.dataset.state = "busy";
    clearTimeout(watchdog);
    watchdog = setTimeout(function () {
      worker.terminate();
      worker = null;
      list.dataset.state = "done";
      setStatus("The search took too long and was stopped; paste just the error lines.");
    }, TIME_LIMIT_MS + TIME_PER_MB_MS * q.length / 1e6);
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
      let text = v.text;
      if (v.type === "size" && v.number !== null) text += " (" + v.number.toLocaleString("en-US") + " bytes)";
      row.append(el("td", "", text));
      table.append(row);
    }
    return table;
  }

  // What the record says the values mean, each with the fix it points to.
  function diagnosesList(match) {
    const box = el("div", "errorkb-result-diagnoses");
    box.append(el("p", "errorkb-result-diagnoses-head", "What your numbers mean"));
    const items = el("ul");
    for (const d of match.diagnoses) {
      const li = el("li", "errorkb-result-diagnosis", d.message + " ");
      const link = el("a", "", "Fix " + d.fix + ": " + d.fix_title);
      link.href = new URL(match.record.url, document.baseURI).href.replace(/#.*$/, "") + "#fixes";
      li.append(link);
      items.append(li);
    }
    box.append(items);
    return box;
  }

  // The way forward when nothing matched exactly: report the error, or start its record.
  function showMissing(q) {
    missing.replaceChildren();
    missing.append(el("p", "errorkb-missing-head", "Not in the catalogue yet?"));
    if (report) {
      const lines = q.split("\n").filter(function (line) { return line.trim(); });
      const title = "Missing error: " + (lines.length ? lines[lines.length - 1].trim().slice(0, 80) : "");
      const link = el("a", "errorkb-report", "Report this error");
      link.href = report + "&title=" + encodeURIComponent(title) + "&paste=" + encodeURIComponent(q.slice(-MAX_REPORT));
      link.target = "_blank";
      link.rel = "noopener";
      const p = el("p");
      p.append(link, " opens the repository's issue form with your paste filled in. Logs can hold " +
        "private paths, user, host and model names: check what the form shows before you send it.");
      missing.append(p);
    }
    const start = el("p", "", "Or add it yourself: save the error line to a file and start its record with ");
    start.append(el("code", "errorkb-new-command", "errorkb new --message-file error.txt"),
      " in a clone of the site's repository.");
    missing.append(start);
    missing.hidden = false;
  }

  // What a paste that matched nothing exactly looks like, and the page that says what to check first.
  function showKind(kind) {
    triage.replaceChildren();
    triage.hidden = !kind;
    if (kind) list.dataset.kind = kind.name;
    else delete list.dataset.kind;
    if (!kind) return;
    const link = el("a", "errorkb-triage-title", kind.title);
    link.href = new URL(kind.url, root).href;
    triage.append(el("span", "errorkb-triage-label", "This looks like: "), link,
      el("span", "", " \u2014 what to check first, and how to find the exact message in your log."));
  }

  function show(result, ms) {
    list.replaceChildren();
    const notes = result.notices.slice();
    const kind = result.kind;
    if (kind) notes.unshift("No exact match." + (result.matches.length ? " The closest errors of that kind follow, not exact." : ""));
    else if (!result.matches.length) notes.unshift("No error in the catalogue matches this paste.");
    else if (!result.matches[0].exact) notes.unshift("No exact match: these are the closest errors, not exact.");
    else notes.unshift(result.matches.length + " error(s) found in " + ms.toFixed(1) + " ms.");
    setStatus(notes.join(" "));
    showKind(kind);
    for (const match of result.matches) {
      const rec = match.record;
      const standing = match.exact ? "exact" : match.also ? "also" : "closest";
      const item = el("li", "errorkb-result errorkb-" + standing);
      item.dataset.id = rec.id;
      item.dataset.exact = String(match.exact);
      const head = el("p", "errorkb-result-head");
      if (rec.code) head.append(el("code", "errorkb-result-code", rec.code), " ");
      const link = el("a", "errorkb-result-title", rec.title);
      link.href = new URL(rec.url, root).href;
      head.append(link, " ", el("span", "errorkb-result-kind",
        { exact: "exact match", also: "also matches, less specific", closest: "closest, not exact" }[standing]));
      item.append(head);
      if (match.line !== null) {
        const where = "Line " + (match.line + 1) + (match.lines > 1 ? "-" + (match.line + match.lines) : "") + " of your paste:";
        item.append(el("p", "errorkb-result-where", where), matchedLine(match));
        if (Object.keys(match.values).length) item.append(valuesTable(match.values));
      }
      if (match.diagnoses.length) item.append(diagnosesList(match));
      if (rec.fixes.length) {
        const label = el("p", "errorkb-result-fixes-label", "First fixes to try ");
        const all = el("a", "", "(all fixes)");
        all.href = new URL(rec.url, root).href.replace(/#.*$/, "") + "#fixes";
        label.append(all);
        item.append(label);
        const fixes = el("ol", "errorkb-result-fixes");
        for (const title of rec.fixes) fixes.append(el("li", "", title));
        item.append(fixes);
      }
      list.append(item);
    }
    if (!result.matches.length || !result.matches[0].exact) showMissing(searched);
    list.dataset.state = "done";
  }

  function load(q) {
    input.value = q;
    search(q);
  }

  // The button's own click starts the search: letting it submit the form would first hand the
  // whole paste to the browser's form machinery first, which takes seconds on a long log.
  form.querySelector("button").addEventListener("click", function (event) {
    event.preventDefault();
    search(input.value);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    search(input.value);
  });
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { search(input.value); }, 300);
  });
  window.addEventListener("hashchange", function () {
    const q = fragmentPaste();
    if (q !== null && q !== shown) load(q);
  });

  // An old ?q= address: its paste moves to the fragment before anything else happens.
  const query = new URLSearchParams(window.location.search).get("q");
  let handed = null;
  try {
    handed = window.sessionStorage.getItem(HANDED);
    window.sessionStorage.removeItem(HANDED);
  } catch (error) {
    handed = null;  // storage refused: the box used the fragment
  }
  const first = query !== null ? query : handed !== null ? handed : fragmentPaste();
  if (query !== null) remember(query);
  if (first) load(first);
})();
