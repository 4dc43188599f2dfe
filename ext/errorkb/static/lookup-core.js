/* errorkb paste lookup: the browser twin of ext/errorkb/lookup.py (same steps, same answers).
 *
 * A plain script usable from node (module.exports) and from a Web Worker (self.ErrorkbLookup).
 * prepare(indexJson) -> index; lookup(index, paste, top) -> {matches, notices}.
 * The index holds the templates' text; they are compiled here, as templates.py compiles them.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.ErrorkbLookup = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const INDEX_VERSION = 2;
  const MAX_PASTE = 256 * 1024;
  const MAX_LINE_CHARS = 2000;
  const MAX_SCAN = 4000000;
  const BM25_K1 = 1.2;
  const BM25_B = 0.75;

  const ANSI = /\x1b\[[0-?]{0,64}[ -\/]{0,8}[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]/g;
  const CONTROL = /[\x00-\x08\x0b-\x1f\x7f\u00a0\u2000-\u200a\u202f\u205f\u3000]/g;
  const LOG_PREFIX = new RegExp(
    "^[ \\t]{0,8}(?:" +
      "\\[rank[0-9]{1,6}\\]:?" +
      "|[0-9]{4}-(?:[0-9]{2}|[A-Z][a-z]{2})-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?:?" +
      "|[IWEF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{1,9}[ \\t]{1,8}[0-9]{1,10} [A-Za-z0-9_.\\-]{1,128}:[0-9]{1,7}\\]" +
      "|[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}[ \\t]{1,32}\\|" +
      ")[ \\t]{0,32}"
  );
  const WORD = /[A-Za-z0-9_]+/g;
  const TERM = /[A-Za-z_][A-Za-z0-9_]*/g;

  /* ---- templates (as ext/errorkb/templates.py compiles them) -------------------------- */

  // A doubled (literal) brace first, then a placeholder; templates in an index are valid.
  const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?\}/g;
  const SPECIAL = /[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g;

  function escapeLiteral(text) {  // Python's re.escape
    return text.replace(SPECIAL, "\\$&");
  }

  function parseTemplate(text) {
    let body = text.trim();
    const wholeLine = body.length > 1 && body[0] === "^" && body[body.length - 1] === "$";
    if (wholeLine) body = body.slice(1, -1);
    const segments = [];
    let literal = "";
    let i = 0;
    for (const m of body.matchAll(PLACEHOLDER)) {
      literal += body.slice(i, m.index);
      i = m.index + m[0].length;
      if (m[1] === undefined) literal += m[0][0];
      else {
        if (literal) segments.push(literal);
        literal = "";
        segments.push({ name: m[1], type: m[2] || m[1] });
      }
    }
    literal += body.slice(i);
    if (literal) segments.push(literal);
    return { segments: segments, wholeLine: wholeLine };
  }

  function compileTemplate(text, patterns) {
    const parsed = parseTemplate(text);
    const segments = parsed.segments;
    const parts = [];
    const names = [];
    const types = [];
    let literal = "";
    segments.forEach(function (seg, pos) {
      if (typeof seg === "string") {
        literal += seg;
        if (pos === 0) seg = seg.replace(/^\s+/, "");
        if (pos === segments.length - 1) seg = seg.replace(/\s+$/, "");
        parts.push(seg.split(/\s+/).map(escapeLiteral).join("[ \\t]+"));
        return;
      }
      const following = segments[pos + 1];
      let pattern = patterns[seg.type][0];
      const narrowed = patterns[seg.type][1];
      if (narrowed && typeof following === "string" && !/\s/.test(following[0])) {
        pattern = narrowed.replace("{stop}", escapeLiteral(following[0]));
      }
      names.push(seg.name);
      types.push(seg.type);
      // Atomic, as Python's (?>...): (?=(...))\N.
      parts.push(seg.type === "text" ? "(" + pattern + ")" : "(?=(" + pattern + "))\\" + names.length);
    });
    let source = parts.join("");
    if (parsed.wholeLine) source = "^[ \\t]*" + source + "[ \\t]*$";
    let spec = 0;
    for (const c of literal) if (!/\s/.test(c)) spec += 1;
    return { js: source, names: names, types: types, spec: spec, literal: literal, words: wholeWords(parsed) };
  }

  // Literal words (3+ characters) that a matching line holds as whole words (lookup.whole_words).
  function wholeWords(parsed) {
    const words = new Set();
    const segments = parsed.segments;
    segments.forEach(function (seg, pos) {
      if (typeof seg !== "string") return;
      const openStart = pos > 0 || !parsed.wholeLine;
      const openEnd = pos < segments.length - 1 || !parsed.wholeLine;
      const text = parsed.wholeLine ? seg.trim() : seg;
      for (const m of text.matchAll(WORD)) {
        if (m[0].length < 3) continue;
        if ((m.index === 0 && openStart) || (m.index + m[0].length === text.length && openEnd)) continue;
        words.add(m[0].toLowerCase());
      }
    });
    return Array.from(words).sort();
  }

  /* ---- the index ---------------------------------------------------------------------- */

  // One array per record: [id, code, title, url, fixes, words, [[template, key], ...]].
  function prepare(data) {
    if (!data || data.version !== INDEX_VERSION) {
      throw new Error("not an errorkb lookup index of version " + INDEX_VERSION);
    }
    const records = [];
    const words = [];
    const templates = [];
    data.records.forEach(function (row, r) {
      records.push({ id: row[0], code: row[1], title: row[2], url: row[3], fixes: row[4] });
      words.push(row[5]);
      for (const t of row[6]) templates.push({ r: r, text: t[0], key: t[1], compiled: null });
    });
    const byKey = new Map();
    const always = [];
    templates.forEach(function (t, i) {
      if (t.key === null) always.push(i);
      else {
        if (!byKey.has(t.key)) byKey.set(t.key, []);
        byKey.get(t.key).push(i);
      }
    });
    return { records: records, words: words, templates: templates, patterns: data.patterns,
      byKey: byKey, always: always, bm25: null };
  }

  // Compiled on first use: a search compiles only the templates it short-lists.
  function compiled(index, e) {
    const t = index.templates[e];
    if (!t.compiled) {
      t.compiled = compileTemplate(t.text, index.patterns);
      t.compiled.regex = new RegExp(t.compiled.js);
    }
    return t.compiled;
  }

  // The closest-match ranking's statistics, worked out on the first search that needs them.
  function bm25Of(index) {
    if (index.bm25) return index.bm25;
    const parts = index.records.map(function (rec, r) {
      return [rec.id, rec.code, rec.title, index.words[r]];
    });
    for (const t of index.templates) parts[t.r].push(parseTemplate(t.text).segments.filter(function (s) {
      return typeof s === "string";
    }).join(""));
    const docs = [];
    const lengths = [];
    const docFreq = new Map();
    for (const p of parts) {
      const found = terms(p.join("\n"));
      const doc = new Map();
      for (const term of found) doc.set(term, (doc.get(term) || 0) + 1);
      for (const term of doc.keys()) docFreq.set(term, (docFreq.get(term) || 0) + 1);
      docs.push(doc);
      lengths.push(found.length);
    }
    const n = docs.length;
    const idf = new Map();
    for (const [term, d] of docFreq) idf.set(term, Math.log(1 + (n - d + 0.5) / (d + 0.5)));
    let total = 0;
    for (const l of lengths) total += l;
    index.bm25 = { docs: docs, lengths: lengths, idf: idf, avgdl: n ? total / n : 1.0 };
    return index.bm25;
  }

  /* ---- a paste ------------------------------------------------------------------------ */

  function formatCount(n) {
    return n.toLocaleString("en-US");
  }

  function normalise(paste) {
    const notices = [];
    if (paste.length > MAX_PASTE) {
      notices.push("The paste has " + formatCount(paste.length) + " characters; only its last " +
        formatCount(MAX_PASTE) + " were searched.");
      paste = paste.slice(-MAX_PASTE);
    }
    paste = paste.replace(ANSI, "").replace(/\r\n/g, "\n").replace(/\r/g, "\n").replace(CONTROL, " ");
    const lines = [];
    let cut = 0;
    paste.split("\n").forEach(function (text, number) {
      for (let k = 0; k < 3; k++) {
        const m = LOG_PREFIX.exec(text);
        if (!m || !m[0]) break;
        text = text.slice(m[0].length);
      }
      if (text.length > MAX_LINE_CHARS) {
        text = text.slice(0, MAX_LINE_CHARS);
        cut += 1;
      }
      if (text.trim()) lines.push({ number: number, text: text });
    });
    if (cut) {
      notices.push(cut + " line(s) longer than " + formatCount(MAX_LINE_CHARS) + " characters were cut.");
    }
    return { lines: lines, notices: notices };
  }

  function looksBinary(paste) {
    if (paste.indexOf("\x00") >= 0) return true;
    const sample = paste.slice(0, 8192);
    let odd = 0;
    for (let i = 0; i < sample.length; i++) {
      const c = sample[i];
      if ((c < " " && c !== "\t" && c !== "\n" && c !== "\r" && c !== "\x1b") || c === "\ufffd") odd += 1;
    }
    return odd > sample.length * 0.1;
  }

  function wordSet(text) {
    const set = new Set();
    const found = text.match(WORD) || [];
    for (const w of found) set.add(w.toLowerCase());
    return set;
  }

  function lookup(index, paste, top) {
    top = top || 5;
    if (!paste.trim()) return { matches: [], notices: ["The paste is empty."] };
    if (looksBinary(paste)) {
      return { matches: [], notices: ["The paste looks like binary data, not text; nothing was searched."] };
    }
    const norm = normalise(paste);
    let matches = exactMatches(index, norm.lines, norm.notices);
    if (!matches.length) matches = closest(index, norm.lines);
    return { matches: matches.slice(0, top), notices: norm.notices };
  }

  function candidates(index, present) {
    const found = new Set(index.always);
    for (const w of present) {
      const list = index.byKey.get(w);
      if (list) for (const e of list) found.add(e);
    }
    return Array.from(found).sort(function (a, b) { return a - b; });
  }

  function exactMatches(index, lines, notices) {
    const words = lines.map(function (l) { return wordSet(l.text); });
    const hits = new Map();
    const seen = new Set();
    let budget = MAX_SCAN;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      // The line alone, then joined to the one before (as in lookup.py).
      const tries = [[line, line.text, words[i], 1]];
      if (i > 0 && lines[i - 1].number === line.number - 1) {
        const both = new Set(words[i - 1]);
        for (const w of words[i]) both.add(w);
        tries.push([lines[i - 1], lines[i - 1].text + " " + line.text, both, 2]);
      }
      for (const [first, text, present, span] of tries) {
        if (seen.has(text)) continue;
        seen.add(text);
        for (const e of candidates(index, present)) {
          if (hits.has(e)) continue;
          const entry = compiled(index, e);
          if (!entry.words.every(function (w) { return present.has(w); })) continue;
          budget -= text.length;
          if (budget < 0) {
            notices.push("The paste was too long to search completely; the search stopped early.");
            return rank(index, hits);
          }
          const m = entry.regex.exec(text);
          if (m) hits.set(e, { line: first, span: span, text: text, m: m });
        }
      }
    }
    return rank(index, hits);
  }

  function compareKeys(a, b) {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
  }

  function rank(index, hits) {
    const templates = index.templates;
    const best = new Map();
    for (const [e, hit] of hits) {
      const entry = compiled(index, e);
      const r = templates[e].r;
      const key = [-entry.spec, hit.line.number, hit.span, e];
      const prev = best.get(r);
      if (!prev || compareKeys(key, prev.key) < 0) best.set(r, { key: key, e: e });
    }
    const ordered = Array.from(best.values()).sort(function (a, b) { return compareKeys(a.key, b.key); });
    return ordered.map(function (b) {
      const entry = compiled(index, b.e);
      const hit = hits.get(b.e);
      const values = {};
      entry.names.forEach(function (name, i) { values[name] = parseValue(entry.types[i], hit.m[i + 1]); });
      return {
        record: index.records[templates[b.e].r], exact: true, score: entry.spec, values: values,
        line: hit.line.number, lines: hit.span, text: hit.text,
        span: [hit.m.index, hit.m.index + hit.m[0].length], template: templates[b.e].text,
        explanation: explain(values),
      };
    });
  }

  function terms(text) {
    const out = [];
    const found = text.match(TERM) || [];
    for (const m of found) {
      const word = m.toLowerCase();
      if (word.length >= 2) out.push(word);
      if (word.indexOf("_") >= 0) {
        for (const part of word.split("_")) {
          if (part.length >= 2 && !(part[0] >= "0" && part[0] <= "9")) out.push(part);
        }
      }
    }
    return out;
  }

  function closest(index, lines) {
    const bm = bm25Of(index);
    const set = new Set();
    for (const line of lines) for (const t of terms(line.text)) set.add(t);
    const query = Array.from(set).sort();
    const scores = [];
    bm.docs.forEach(function (doc, r) {
      const norm = BM25_K1 * (1 - BM25_B + BM25_B * bm.lengths[r] / bm.avgdl);
      let score = 0.0;
      for (const term of query) {
        const tf = doc.get(term) || 0;
        if (tf) score += bm.idf.get(term) * tf * (BM25_K1 + 1) / (tf + norm);
      }
      if (score > 0) scores.push([score, r]);
    });
    scores.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    return scores.map(function (s) {
      return { record: index.records[s[1]], exact: false, score: Math.round(s[0] * 10000) / 10000,
        values: {}, line: null, lines: 0, text: "", span: [0, 0], template: "", explanation: null };
    });
  }

  /* ---- values ------------------------------------------------------------------------- */

  const UNIT_FACTORS = {
    b: 1, byte: 1, bytes: 1,
    k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4, p: 1024 ** 5, e: 1024 ** 6,
    kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4, pib: 1024 ** 5, eib: 1024 ** 6,
    kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3, tb: 1000 ** 4, pb: 1000 ** 5, eb: 1000 ** 6,
  };
  const SIZE_PARTS = /^([0-9]+(?:[.,][0-9]*)?)[ \t]?([A-Za-z]+)$/;

  function roundHalfEven(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  function parseSize(text) {
    const m = SIZE_PARTS.exec(text.trim());
    if (!m) return null;
    const factor = UNIT_FACTORS[m[2].toLowerCase()];
    if (factor === undefined) return null;
    return roundHalfEven(Number(m[1].replace(",", ".")) * factor);
  }

  function parseValue(type, text) {
    if (type === "size") return { type: type, text: text, number: parseSize(text) };
    if (type === "int") return { type: type, text: text, number: Number(text.replace(/,/g, "")) };
    if (type === "float") return { type: type, text: text, number: Number(text) };
    if (type === "quoted") return { type: type, text: text.slice(1, -1), number: null };
    return { type: type, text: text, number: null };
  }

  function valueJson(v) {
    const out = { type: v.type, text: v.text };
    if (v.number !== null && v.number !== undefined) out[v.type === "size" ? "bytes" : "value"] = v.number;
    return out;
  }

  function matchJson(m) {
    const values = {};
    for (const name of Object.keys(m.values)) values[name] = valueJson(m.values[name]);
    return { id: m.record.id, code: m.record.code || null, title: m.record.title, score: m.score,
      exact: m.exact, values: values, url: m.record.url };
  }

  /* ---- what the numbers mean ---------------------------------------------------------- */

  function formatBytes(n) {
    const units = [["TiB", 1024 ** 4], ["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]];
    for (const [unit, factor] of units) if (Math.abs(n) >= factor) return (n / factor).toFixed(2) + " " + unit;
    return n.toFixed(0) + " bytes";
  }

  function explain(values) {
    function size(name) {
      const v = values[name];
      return v !== undefined && v.type === "size" ? v.number : null;
    }
    let need = size("used") || size("requested");
    const capacity = size("capacity") || size("limit");
    const excess = size("excess");
    const requested = size("requested");
    const free = size("free");
    if (!need && capacity && excess) need = capacity + excess;
    if (need && capacity && need > capacity) {
      const shortfall = excess || need - capacity;
      const ratio = need / capacity;
      const pct = shortfall / need * 100;
      let text = "Needs " + ratio.toFixed(2) + "x this device's memory: " + formatBytes(need) + " against " +
        formatBytes(capacity) + ", " + formatBytes(shortfall) + " short. To fit, peak memory must " +
        "shrink by at least " + pct.toFixed(0) + "%";
      if (ratio <= 2) text += "; halving the largest arrays (bfloat16) or the batch can be enough.";
      else text += "; halving is not enough, so look for an unsharded array or an unexpected large allocation first.";
      return { ratio: Math.round(ratio * 10000) / 10000, shortfall: shortfall, text: text };
    }
    if (requested && free !== null && requested > free) {
      const shortfall = requested - free;
      let text = "Asked for " + formatBytes(requested) + " with " + formatBytes(free) + " free: " +
        formatBytes(shortfall) + " short.";
      if (capacity && requested < capacity) {
        const pct = requested / capacity * 100;
        text += " The request is " + pct.toFixed(1) + "% of the device's " + formatBytes(capacity) +
          ": most memory is already held, so free or defragment what is held rather than only shrinking this request.";
      }
      return { ratio: null, shortfall: shortfall, text: text };
    }
    return null;
  }

  return {
    INDEX_VERSION: INDEX_VERSION, MAX_PASTE: MAX_PASTE, prepare: prepare, lookup: lookup, normalise: normalise,
    looksBinary: looksBinary, explain: explain, compileTemplate: compileTemplate, parseSize: parseSize, matchJson: matchJson, terms: terms,
  };
});
