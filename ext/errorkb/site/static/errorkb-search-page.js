/* errorkb on the site's search page: when the text searched for is (part of) an error message,
 * the lookup answers it above the search results, with the record and the fix to try first.
 * The lookup runs in the same worker as on the lookup page; nothing is sent anywhere. */
(function () {
  "use strict";
  const script = document.currentScript;
  const q = new URLSearchParams(window.location.search).get("q");
  if (!script || !q || !q.trim()) return;
  const data = script.dataset;
  const worker = new Worker(new URL(data.worker, document.baseURI).href);
  const root = new URL(data.root || "./", document.baseURI);

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function link(text, href, className) {
    const a = el("a", className || "");
    text.split("`").forEach(function (part, i) { if (part) a.append(i % 2 ? el("code", "", part) : part); });
    a.href = href;
    return a;
  }

  function show(result) {
    const exact = result.matches.filter(function (m) { return m.exact; });
    if (!exact.length) return;
    const box = el("section", "errorkb-search-answer");
    box.setAttribute("aria-labelledby", "errorkb-search-answer-title");
    const title = el("h2", "", "Your text is an error message");
    title.id = "errorkb-search-answer-title";
    box.append(title);
    const list = el("ul");
    for (const match of exact) {
      const page = new URL(match.record.url, root).href.replace(/#.*$/, "");
      const item = el("li");
      item.append(link(match.record.title, page, "errorkb-search-answer-record"));
      const first = match.fixes.find(function (f) { return !f.ruled_out; });
      if (first) item.append(" \u2014 first fix: ", link(first.title, page + "#" + first.anchor));
      list.append(item);
    }
    box.append(list);
    const more = el("p");
    const lookup = new URL(data.lookup, document.baseURI);
    lookup.hash = "q=" + encodeURIComponent(q);
    more.append(link("Paste the whole message or log into the lookup", lookup.href),
      " to read its numbers and the fix they call for; the pages that mention your words follow.");
    box.append(more);
    const results = document.getElementById("search-results");
    (results ? results.parentNode : document.querySelector("[role=main]") || document.body)
      .insertBefore(box, results || null);
  }

  worker.onmessage = function (event) {
    if (event.data.result) show(event.data.result);
    worker.terminate();
  };
  worker.postMessage({ id: 1, q: q, top: 3, indexUrl: new URL(data.index, document.baseURI).href });
})();
