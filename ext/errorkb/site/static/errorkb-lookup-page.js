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
  let reveal = false;  // whether the next answer is scrolled into view (not while typing)

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

  // Text with its Markdown code spans (`x`) as <code>: fix titles and messages come so.
  function withCode(parent, text) {
    text.split("`").forEach(function (part, i) {
      if (part) parent.append(i % 2 ? el("code", "", part) : part);
    });
    return parent;
  }

  // The link to a fix's own section of the record's page.
  function fixLink(match, fix, text) {
    const link = withCode(el("a", "errorkb-result-fix"), text);
    link.href = new URL(match.record.url, root).href.replace(/#.*$/, "") + "#" + fix.anchor;
    return link;
  }

  // The fixes in the order the values call for: the first three not ruled out, then those ruled out.
  function fixesList(match) {
    const out = [];
    const open = match.fixes.filter(function (f) { return !f.ruled_out; }).slice(0, 3);
    const label = el("p", "errorkb-result-fixes-label", match.fixes.some(function (f) { return f.diagnosed; })
      ? "What to do, as your numbers call for " : "What to do first ");
    const all = el("a", "", "(all fixes)");
    all.href = new URL(match.record.url, root).href.replace(/#.*$/, "") + "#what-to-do";
    label.append(all);
    out.push(label);
    const list = el("ol", "errorkb-result-fixes");
    for (const fix of open) {
      const item = el("li");
      item.value = fix.number;
      item.append(fixLink(match, fix, fix.title));
      if (fix.cost) item.append(" ", el("span", "errorkb-result-cost", fix.cost));
      if (fix.diagnosed) item.append(" ", el("span", "errorkb-result-why", "your numbers point here"));
      list.append(item);
    }
    out.push(list);
    const ruledOut = match.fixes.filter(function (f) { return f.ruled_out; });
    if (ruledOut.length) {
      const p = el("p", "errorkb-result-ruled-out", "Ruled out by your numbers: ");
      ruledOut.forEach(function (fix, i) {
        if (i) p.append(", ");
        p.append(fixLink(match, fix, fix.number + ". " + fix.title));
      });
      out.push(p);
    }
    return out;
  }

  function valuesTable(match) {
    const values = match.values;
    const names = Object.keys(values).filter(function (name) { return values[name].text.trim(); });
    const box = el("details", "errorkb-result-values-box");
    box.append(el("summary", "", "Values read from your paste (" + names.length + ")"));
    const table = el("table", "errorkb-result-values");
    for (const name of names) {
      const v = values[name];
      const row = el("tr");
      const head = el("th", "", match.labels[name]);
      head.scope = "row";
      head.title = name;
      row.append(head);
      let text = v.text;
      if (v.type === "size" && v.number !== null) text += " (" + v.number.toLocaleString("en-US") + " bytes)";
      row.append(el("td", "", text));
      table.append(row);
    }
    box.append(table);
    return box;
  }

  // What the values are and mean: the record's readings, then its diagnoses, each with its fix.
  function diagnosesList(match) {
    const box = el("div", "errorkb-result-diagnoses");
    box.append(el("p", "errorkb-result-diagnoses-head", "What your numbers mean"));
    const items = el("ul");
    for (const reading of match.readings) items.append(el("li", "errorkb-result-reading", reading));
    for (const d of match.diagnoses) {
      const li = el("li", "errorkb-result-diagnosis" + (d.rules_out ? " errorkb-result-rules-out" : ""), d.message + " ");
      const fix = match.fixes.find(function (f) { return f.number === d.fix; });
      li.append(fixLink(match, fix, (d.rules_out ? "Rules out fix " : "Fix ") + d.fix + ": " + d.fix_title));
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
    const start = el("p", "", (report ? "Or add it yourself" : "Add it yourself") +
      ": save the error line to a file and start its record with ");
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
      const link = withCode(el("a", "errorkb-result-title"), rec.title);
      link.href = new URL(rec.url, root).href;
      head.append(link, " ", el("span", "errorkb-result-kind",
        { exact: "exact match", also: "also matches, less specific", closest: "closest, not exact" }[standing]));
      item.append(head);
      if (match.fixes.length) item.append.apply(item, fixesList(match));
      if (match.readings.length || match.diagnoses.length) item.append(diagnosesList(match));
      if (match.line !== null) {
        const where = "Line " + (match.line + 1) + (match.lines > 1 ? "-" + (match.line + match.lines) : "") + " of your paste:";
        item.append(el("p", "errorkb-result-where", where), matchedLine(match));
        if (Object.keys(match.values).length) item.append(valuesTable(match));
      }
      list.append(item);
    }
    if (!result.matches.length || !result.matches[0].exact) showMissing(searched);
    list.dataset.state = "done";
    if (reveal && list.firstElementChild) {
      // A paste handed over or submitted: its first answer comes into view, with the focus.
      const title = list.firstElementChild.querySelector(".errorkb-result-title");
      list.firstElementChild.scrollIntoView({ block: "start" });
      if (title) title.focus({ preventScroll: true });
    }
    reveal = false;
  }

  function load(q) {
    input.value = q;
    reveal = true;
    search(q);
  }

  // The button's own click starts the search: letting it submit the form would first hand the
  // whole paste to the browser's form machinery first, which takes seconds on a long log.
  form.querySelector("button").addEventListener("click", function (event) {
    event.preventDefault();
    reveal = true;
    search(input.value);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    reveal = true;
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
