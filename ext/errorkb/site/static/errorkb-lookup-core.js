/* errorkb paste lookup: the browser twin of ext/errorkb/lookup.py (same steps, same answers).
 *
 * A plain script usable from node (module.exports) and from a Web Worker (self.ErrorkbLookup).
 * prepare(indexJson) -> index; lookup(index, paste, top) -> {matches, notices}.
 * The index holds the templates' text, compiled here as templates.py compiles them, and the
 * constants of lookup.py (limits, character ranges, expressions).  Positions inside the engine
 * are JavaScript string offsets; matchJson gives them in characters (code points), as Python.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.ErrorkbLookup = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const INDEX_VERSION = 5;
  const MENTION = 0, OTHER = 1, ERROR = 2;  // standings (lookup.MENTION ...)
  const NON_ASCII = /[^\x00-\x7f]/;  // lower-casing such a line could change its words: done word by word

  /* ---- characters, not UTF-16 units ------------------------------------------------------- */

  function isPair(s, i) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) return false;
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff;
  }

  // Characters in s.slice(0, end).
  function chars(s, end) {
    if (end === undefined) end = s.length;
    let n = 0;
    for (let i = 0; i < end; i++) {
      if (isPair(s, i) && i + 1 < end) i++;
      n++;
    }
    return n;
  }

  // The offset after the first n characters of s.
  function offsetOf(s, n) {
    let i = 0;
    for (let k = 0; k < n && i < s.length; k++) i += isPair(s, i) ? 2 : 1;
    return i;
  }

  function firstChar(s) {
    return String.fromCodePoint(s.codePointAt(0));
  }

  /* ---- templates (as ext/errorkb/templates.py compiles them) ------------------------------ */

  // A doubled (literal) brace first, then a placeholder; templates in an index are valid.
  const PLACEHOLDER = /\{\{|\}\}|\{\?|\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?\}|\}/g;
  const SYNTAX = /[\\^$.|?*+()[\]{}]/g;
  const BLANKS = "[ \\t]+";

  function escapeLiteral(text) {  // templates.escape
    return text.replace(SYNTAX, "\\$&");
  }

  function escapeInClass(c) {
    return "\\]^-[".indexOf(c) >= 0 ? "\\" + c : c;
  }

  function literalPattern(text) {
    return text.split(/\s+/).map(escapeLiteral).join(BLANKS);
  }

  function notInsideBlanks(pattern) {
    return pattern.startsWith(BLANKS) ? "(?<![ \\t])" + pattern : pattern;
  }

  // Segments: literal strings, placeholders {name, type} and optional parts {optional: [...]}.
  function parseTemplate(text) {
    let body = text.trim();
    const wholeLine = body.length > 1 && body[0] === "^" && body[body.length - 1] === "$";
    if (wholeLine) body = body.slice(1, -1);
    const segments = [];
    let inner = null;  // the open optional part's segments
    let literal = "";
    function flush() {
      if (literal) (inner || segments).push(literal);
      literal = "";
    }
    let i = 0;
    for (const m of body.matchAll(PLACEHOLDER)) {
      literal += body.slice(i, m.index);
      i = m.index + m[0].length;
      if (m[0] === "{?") {
        flush();
        inner = [];
      } else if (m[0] === "}") {
        flush();
        segments.push({ optional: inner });
        inner = null;
      } else if (m[1] === undefined) literal += m[0][0];
      else {
        flush();
        (inner || segments).push({ name: m[1], type: m[2] || m[1] });
      }
    }
    literal += body.slice(i);
    flush();
    return { segments: segments, wholeLine: wholeLine };
  }

  // What may come before and after each literal and placeholder, optional parts taken or
  // skipped (templates.Layout); -1 stands for either end of the template.
  function layoutOf(segments) {
    const items = [];
    const groups = [];
    segments.forEach(function (seg, pos) {
      if (seg.optional) for (const item of seg.optional) { items.push(item); groups.push(pos); }
      else { items.push(seg); groups.push(null); }
    });
    const n = items.length;
    function reach(j, step) {
      const out = new Set();
      while (j >= 0 && j < n) {
        out.add(j);
        const group = groups[j];
        if (group === null || (j - step >= 0 && j - step < n && groups[j - step] === group)) return out;
        while (j >= 0 && j < n && groups[j] === group) j += step;
      }
      out.add(-1);
      return out;
    }
    const after = [], before = [], texts = [];
    for (let i = 0; i < n; i++) { after.push(reach(i + 1, 1)); before.push(reach(i - 1, -1)); }
    for (let i = 0; i < n; i++) {
      let item = items[i];
      if (typeof item !== "string") item = "";
      if (i === 0) item = item.replace(/^\s+/, "");
      if (after[i].size === 1 && after[i].has(-1)) item = item.replace(/\s+$/, "");
      texts.push(item);
    }
    function following(i) {
      return Array.from(after[i]).filter(function (j) { return j >= 0; }).sort(function (a, b) { return a - b; });
    }
    return { items: items, groups: groups, after: after, before: before, texts: texts, following: following };
  }

  // `words`: the global regular expression of a word (the index's text.word).
  function compileTemplate(text, patterns, words) {
    const parsed = parseTemplate(text);
    const lay = layoutOf(parsed.segments);
    const items = lay.items;
    const literals = {};
    items.forEach(function (item, i) {
      if (typeof item === "string") literals[i] = literalPattern(lay.texts[i]);
    });
    const parts = [];
    const names = [];
    const types = [];
    const groupOf = [];  // each placeholder's capturing group
    let groups = 0;
    let opened = 0;
    items.forEach(function (item, i) {
      const group = lay.groups[i];
      if (group !== null && (i === 0 || lay.groups[i - 1] !== group)) {
        groups += 1;
        opened = groups;
        parts.push("(?=((?:");
      }
      if (typeof item === "string") parts.push(literals[i]);
      else {
        const following = lay.following(i);
        const narrowed = patterns[item.type][1];
        let stop = "";
        if (narrowed && !lay.after[i].has(-1)) {
          const firsts = new Set(following.map(function (j) { return lay.texts[j] ? firstChar(lay.texts[j]) : ""; }));
          if (firsts.size === 1) stop = firsts.values().next().value;
          if (/\s/.test(stop)) stop = "";
        }
        let pattern;
        if (stop) {
          pattern = narrowed.replace("{stop}", function () { return escapeLiteral(stop); })
            .replace("{stop_class}", function () { return escapeInClass(stop); });
        } else if (item.type === "text") {
          const stops = following.map(function (j) { return literals[j]; }).concat([i > 0 ? literals[0] : ""])
            .filter(Boolean).map(notInsideBlanks).join("|");
          pattern = patterns.text[0].replace("{stops}", function () { return stops; });
          let blankBefore = false;
          for (const j of lay.before[i]) {
            if (j >= 0 ? literals[j] !== undefined && literals[j].endsWith(BLANKS) : parsed.wholeLine) blankBefore = true;
          }
          if (blankBefore) pattern = "(?![ \\t])" + pattern;
        } else {
          pattern = patterns[item.type][0];
        }
        groups += 1;
        names.push(item.name);
        types.push(item.type);
        groupOf.push(groups);
        // Atomic, as Python's (?>...): (?=(...))\N.
        parts.push("(?=(" + pattern + "))\\" + groups);
      }
      if (group !== null && (i === items.length - 1 || lay.groups[i + 1] !== group)) parts.push(")?))\\" + opened);
    });
    let source = parts.join("");
    if (parsed.wholeLine) source = "^[ \\t]*" + source + "[ \\t]*$";
    const required = parsed.segments.filter(function (seg) { return typeof seg === "string"; });
    const literal = required.join("");
    let spec = 0;
    for (const c of literal) if (!/\s/.test(c)) spec += 1;
    const runs = Array.from(new Set([].concat.apply([], required.map(function (seg) {
      return seg.split(/\s+/).filter(Boolean);
    }))));
    // The least likely in a log first (lookup.Entry.runs).
    function weight(run) {
      let w = 0;
      for (const c of run) w += c >= "a" && c <= "z" ? 1 : 3;
      return w;
    }
    runs.sort(function (a, b) { return weight(b) - weight(a) || (a < b ? -1 : a > b ? 1 : 0); });
    return { js: source, names: names, types: types, groups: groupOf, spec: spec, literal: literal,
      words: wholeWords(parsed, lay, words), runs: runs };
  }

  // Literal words (3+ characters) that a matching line holds as whole words (lookup.whole_words).
  function wholeWords(parsed, lay, wordRx) {
    const words = new Set();
    lay.items.forEach(function (seg, i) {
      if (typeof seg !== "string" || lay.groups[i] !== null) return;
      const openStart = !(lay.before[i].size === 1 && lay.before[i].has(-1)) || !parsed.wholeLine;
      const openEnd = !(lay.after[i].size === 1 && lay.after[i].has(-1)) || !parsed.wholeLine;
      const text = parsed.wholeLine ? seg.trim() : seg;
      for (const m of text.matchAll(wordRx)) {
        if (m[0].length < 3) continue;
        if ((m.index === 0 && openStart) || (m.index + m[0].length === text.length && openEnd)) continue;
        words.add(m[0].toLowerCase());
      }
    });
    return Array.from(words).sort();
  }

  /* ---- the index -------------------------------------------------------------------------- */

  function rangeClass(ranges) {
    return new RegExp("[" + ranges.map(function (r) {
      return "\\u{" + r[0].toString(16) + "}-\\u{" + r[1].toString(16) + "}";
    }).join("") + "]+", "gu");
  }

  // One array per record: [id, code, title, url, fixes, words, [[template, key], ...], aliases].
  function prepare(data) {
    if (!data || data.version !== INDEX_VERSION) {
      throw new Error("not an errorkb lookup index of version " + INDEX_VERSION);
    }
    const t = data.text;
    const rx = {
      // A prefix after a line end is found by that line end, faster (lookup._LATER_PREFIX).
      ansi: new RegExp(t.ansi, "gu"), laterPrefix: new RegExp("\n" + t.prefix.slice(1), "gu"),
      prefix: new RegExp(t.prefix, "u"),  // at the start only
      words: new RegExp(t.word, "g"), term: new RegExp(t.term, "g"), wordChar: new RegExp(t.word_char),
      blank: new RegExp(t.blank), digits: new RegExp(t.digits), quoteKinds: t.quote_kinds,
      sizeParts: new RegExp("^(?:" + data.units.parts + ")$"),
      marker: new RegExp(t.marker, "gu"), errorName: new RegExp(t.error_name, "u"), hint: new RegExp(t.hint, "u"),
      quote: new RegExp(t.quote, "gu"), classCall: new RegExp(t.class_call, "u"), token: new RegExp(t.token, "gu"),
      isToken: new RegExp("^(?:" + t.token + ")$", "u"),
      dropped: rangeClass(t.dropped), spaces: rangeClass(t.spaces), notText: rangeClass(t.not_text),
    };
    const records = [];
    const words = [];
    const templates = [];
    data.records.forEach(function (row, r) {
      records.push({ id: row[0], code: row[1], title: row[2], url: row[3], fixes: row[4], aliases: row[7],
        diagnoses: row[8] });
      words.push(row[5]);
      for (const tpl of row[6]) templates.push({ r: r, text: tpl[0], key: tpl[1], compiled: null });
    });
    const byKey = new Map();
    const always = [];
    templates.forEach(function (tpl, i) {
      if (tpl.key === null) always.push(i);
      else {
        if (!byKey.has(tpl.key)) byKey.set(tpl.key, []);
        byKey.get(tpl.key).push(i);
      }
    });
    const names = new Map();
    const byNameWord = new Map();
    records.forEach(function (rec, r) {
      for (const text of new Set([rec.id, rec.code].concat(rec.aliases))) {
        if (!text || !rx.isToken.test(text)) continue;
        const name = { record: r, text: text, folded: text.toLowerCase(), digits: rx.digits.test(text) };
        if (!names.has(name.folded)) names.set(name.folded, []);
        names.get(name.folded).push(name);
        const last = name.folded.match(rx.words).pop();
        if (!byNameWord.has(last)) byNameWord.set(last, []);
        byNameWord.get(last).push(name);
      }
    });
    const keys = new Set(byKey.keys());
    for (const key of byNameWord.keys()) keys.add(key);
    const kinds = data.kinds.map(function (k) {
      return { name: k[0], title: k[1], url: k[2], matcher: k[3] ? new RegExp(k[3], "giu") : null, records: new Set(k[4]) };
    });
    return { kinds: kinds, records: records, words: words, templates: templates, patterns: data.patterns, rx: rx,
      limits: data.limits, scanFrom: data.limits.scan_from, k1: data.bm25[0], b: data.bm25[1], report: data.report,
      notices: data.notices, factors: data.units.factors, shown: data.units.shown,
      byKey: byKey, always: always, names: names, byNameWord: byNameWord, keys: keys, bm25: null };
  }

  // Compiled on first use: a search compiles only the templates it short-lists.
  function compiled(index, e) {
    const tpl = index.templates[e];
    if (!tpl.compiled) {
      tpl.compiled = compileTemplate(tpl.text, index.patterns, index.rx.words);
      tpl.compiled.regex = new RegExp(tpl.compiled.js, "gu");
      tpl.compiled.wordsOf = tpl.key === null ? [] : tpl.compiled.words;
    }
    return tpl.compiled;
  }

  // The closest-match ranking's statistics, worked out on the first search that needs them.
  function bm25Of(index) {
    if (index.bm25) return index.bm25;
    const parts = index.records.map(function (rec, r) {
      return [rec.id, rec.code, rec.title, index.words[r]];
    });
    for (const tpl of index.templates) parts[tpl.r].push(parseTemplate(tpl.text).segments.filter(function (s) {
      return typeof s === "string";
    }).join(""));
    const docs = [];
    const lengths = [];
    const docFreq = new Map();
    for (const p of parts) {
      const found = terms(index, p.join("\n"));
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

  /* ---- a paste ---------------------------------------------------------------------------- */

  // A notice of the index's, its numbers with thousands separators (lookup.notice).
  function notice(index, key, count, limit) {
    return index.notices[key].replace("{count}", function () { return (count || 0).toLocaleString("en-US"); })
      .replace("{limit}", function () { return (limit || 0).toLocaleString("en-US"); });
  }

  function looksBinary(index, paste) {
    const odd = paste.length - paste.replace(index.rx.notText, "").length;
    // A character takes one or two units of a string: counting them is needed only near the edge.
    return odd * 4 > paste.length && odd > chars(paste) / 2;
  }

  function normalise(index, paste) {
    const notices = [];
    const limits = index.limits;
    const rx = index.rx;
    if (paste.length > limits.paste) {
      const total = chars(paste);
      if (total > limits.paste) {
        notices.push(notice(index, "characters", total, limits.paste));
        paste = paste.slice(offsetOf(paste, total - limits.paste));
      }
    }
    paste = paste.replace(rx.ansi, "").replace(/\r\n/g, "\n").replace(/\r/g, "\n");
    paste = paste.replace(rx.dropped, "").replace(rx.spaces, " ");
    let raw = paste.split("\n");
    if (raw.length > limits.lines) {
      notices.push(notice(index, "lines", raw.length, limits.lines));
      raw = raw.slice(-limits.lines);
      paste = raw.join("\n");
    }
    paste = paste.replace(rx.laterPrefix, "\n");
    const first = rx.prefix.exec(paste);
    if (first) paste = paste.slice(first[0].length);
    const lines = paste.split("\n");
    let cut = 0;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].length > limits.line && chars(lines[i]) > limits.line) {
        lines[i] = lines[i].slice(0, offsetOf(lines[i], limits.line));
        cut += 1;
      }
    }
    if (cut) {
      notices.push(notice(index, "cut", cut, limits.line));
    }
    return { lines: lines, raw: raw, notices: notices, oneLine: null };
  }

  function oneLine(paste) {
    if (paste.oneLine === null) {
      let n = 0;
      for (const line of paste.lines) if (line.trim()) n += 1;
      paste.oneLine = n === 1;
    }
    return paste.oneLine;
  }

  function lookup(index, paste, top) {
    top = top || 5;
    if (index.rx.blank.test(paste)) return { matches: [], notices: [notice(index, "empty")] };
    if (looksBinary(index, paste)) return { matches: [], notices: [notice(index, "binary")] };
    const norm = normalise(index, paste);
    const matches = exactMatches(index, norm);
    if (matches.length) return { matches: matches.slice(0, top), notices: norm.notices, kind: null };
    const kind = classify(index.kinds, norm.lines.join("\n"));
    return { matches: closest(index, norm.lines, kind ? kind.records : null).slice(0, top), notices: norm.notices,
      kind: kind ? { name: kind.name, title: kind.title, url: kind.url } : null };
  }

  // The kind a paste looks like: the most of its cues, each counted once; else the kind without
  // cues (triage.py: classify).
  function classify(kinds, text) {
    let best = null;
    let most = 0;
    for (const kind of kinds) {
      if (!kind.matcher) continue;
      const found = new Set();
      for (const m of text.matchAll(kind.matcher)) found.add(m[0].toLowerCase().split(/\s+/).filter(Boolean).join(" "));
      if (found.size > most) { best = kind; most = found.size; }
    }
    return best || kinds.find(function (k) { return !k.matcher; }) || null;
  }

  // The words of a line, lower case (ASCII letters only, as Python's side does).
  function lineWords(index, line) {
    if (!NON_ASCII.test(line)) return line.toLowerCase().match(index.rx.words) || [];
    const found = line.match(index.rx.words);
    if (!found) return [];
    for (let k = 0; k < found.length; k++) found[k] = found[k].toLowerCase();
    return found;
  }

  // The lines that are the last copy of their text and of their log prefix, its numbers aside
  // (lookup.py: last_copies).
  function lastCopies(index, paste) {
    const last = new Map();
    paste.lines.forEach(function (line, i) {
      const raw = paste.raw[i];
      let prefix = "";
      if (raw !== line) {
        const m = index.rx.prefix.exec(raw);
        if (m) prefix = m[0];
      }
      last.set(line + "\u0000" + prefix.replace(/[0-9]+/g, ""), i);
    });
    return new Set(last.values());
  }

  function exactMatches(index, paste) {
    const lines = paste.lines;
    const wordSets = new Map();
    function wordsOf(i) {
      if (!wordSets.has(i)) wordSets.set(i, new Set(lineWords(index, lines[i])));
      return wordSets.get(i);
    }
    const last = lastCopies(index, paste);
    const holding = new Map();  // key -> the lines that hold it
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i] || !last.has(i)) continue;
      const found = lineWords(index, lines[i]);
      for (let k = 0; k < found.length; k++) {
        const w = found[k];
        if (!index.keys.has(w)) continue;
        let list = holding.get(w);
        if (!list) holding.set(w, list = []);
        if (list[list.length - 1] !== i) list.push(i);
      }
    }
    const shortListed = new Map();  // entry -> the lines that hold its key
    for (const [key, found] of holding) for (const e of index.byKey.get(key) || []) shortListed.set(e, found);
    let flat = null;  // the lines as one text, and where each starts in it
    const holdingRun = new Map();
    function linesHolding(run) {  // the lines that contain run (once per copy), in one scan
      if (!holdingRun.has(run)) {
        if (!flat) {
          const scanned = lines.map(function (line, i) { return last.has(i) ? line : ""; });
          const starts = [0];
          for (const line of scanned) starts.push(starts[starts.length - 1] + line.length + 1);
          flat = { text: scanned.join("\n"), starts: starts };
        }
        const found = [];
        for (let at = flat.text.indexOf(run); at >= 0; at = flat.text.indexOf(run, at + 1)) {
          let lo = 0, hi = flat.starts.length - 1;
          while (lo < hi) {  // the last start <= at
            const mid = (lo + hi + 1) >> 1;
            if (flat.starts[mid] <= at) lo = mid; else hi = mid - 1;
          }
          found.push(lo);
        }
        holdingRun.set(run, found);
      }
      return holdingRun.get(run);
    }
    for (const e of index.always) shortListed.set(e, linesHolding(compiled(index, e).runs[0]));
    const searched = new Map();  // the same text is searched once per template
    const hits = [];
    for (const [e, found] of shortListed) {
      let lines = found;
      if (found.length > index.scanFrom) {  // keep the lines near a copy of its longest literal run
        const near = new Set();
        for (const j of linesHolding(compiled(index, e).runs[0])) { near.add(j - 1); near.add(j); near.add(j + 1); }
        lines = found.filter(function (i) { return near.has(i); });
      }
      templateHits(index, paste, e, lines, wordsOf, searched, hits);
    }
    const named = new Map();  // line -> the names whose last word it holds
    for (const [key, found] of holding) {
      const names = index.byNameWord.get(key);
      if (names) for (const i of found) named.set(i, (named.get(i) || []).concat(names));
    }
    const exact = hits.filter(function (h) { return h.standing > MENTION; });
    const matched = new Set();
    const spans = new Map();  // line -> what one-line template matches cover: [start, end, record]
    for (const h of exact) {
      for (let k = h.line; k < h.line + h.lines; k++) matched.add(k);
      if (h.lines === 1) spans.set(h.line, (spans.get(h.line) || []).concat([[h.span[0], h.span[1], h.record]]));
    }
    for (const [i, names] of named) nameHits(index, paste, i, names, matched.has(i), spans.get(i) || [], exact);
    return rank(index, exact);
  }

  // Every occurrence of entry e in a short-listed line; where the line alone gives none, in it
  // joined to the line before or after, crossing the join (lookup._Matcher.hits).
  function templateHits(index, paste, e, shortListed, wordsOf, searched, hits) {
    const entry = compiled(index, e);
    const lines = paste.lines;
    const tried = new Set();
    function search(text) {
      const key = e + "\n" + text;
      let found = searched.get(key);
      if (found === undefined) {
        found = Array.from(text.matchAll(entry.regex));
        searched.set(key, found);
      }
      return found;
    }
    function hit(first, count, text, m) {
      hits.push({ record: index.templates[e].r, line: first, lines: count, text: text,
        span: [m.index, m.index + m[0].length], standing: standing(index, paste, first, text, m.index),
        named: false, spec: entry.spec, order: e, m: m });
    }
    function holdsRuns(text, other) {
      for (const run of entry.runs) if (!text.includes(run) && !(other && other.includes(run))) return false;
      return true;
    }
    function holdsWords(a, b) {
      for (const w of entry.wordsOf) if (!wordsOf(a).has(w) && !(b >= 0 && wordsOf(b).has(w))) return false;
      return true;
    }
    for (const i of new Set(shortListed)) {
      const text = lines[i];
      if (holdsRuns(text, null) && holdsWords(i, -1)) {
        const found = search(text);
        if (found.length) {
          for (const m of found) hit(i, 1, text, m);
          continue;
        }
      }
      for (const first of [i - 1, i]) {
        const other = first === i ? i + 1 : first;
        if (first < 0 || other >= lines.length || tried.has(first) || !lines[other].trim()) continue;
        if (!holdsRuns(text, lines[other])) continue;
        tried.add(first);
        if (!holdsWords(first, first + 1)) continue;
        const joined = lines[first] + " " + lines[first + 1];
        const join = lines[first].length;
        for (const m of search(joined)) if (m.index < join && join < m.index + m[0].length - 1) hit(first, 2, joined, m);
      }
    }
  }

  // The names that line i writes as a token or as the end of a dotted one; on a matched line,
  // not one that labels the message ("Name:").
  // lookup.py: _name_hits
  function nameHits(index, paste, i, names, matched, covered, hits) {
    const wanted = new Set(names.map(function (n) { return n.folded; }));
    const text = paste.lines[i];
    for (const m of text.matchAll(index.rx.token)) {
      if (matched && text.slice(m.index + m[0].length).replace(/^[ \t]+/, "").startsWith(":")) continue;
      const token = m[0].toLowerCase();
      let at = 0;
      for (;;) {
        const tail = token.slice(at);
        if (wanted.has(tail)) {
          for (const name of index.names.get(tail)) {
            if (name.digits && !oneLine(paste)) continue;
            const start = m.index + at;
            const end = m.index + m[0].length;
            if (covered.some(function (c) { return c[0] <= start && end <= c[1] && c[2] !== name.record; })) continue;
            let spec = 0;
            for (const c of name.text) if (!/\s/.test(c)) spec += 1;
            hits.push({ record: name.record, line: i, lines: 1, text: text, span: [start, m.index + m[0].length],
              standing: Math.max(OTHER, standing(index, paste, i, text, start)), named: true, spec: spec,
              order: index.templates.length + name.record, m: null, name: name.text });
          }
        }
        const dot = token.indexOf(".", at);
        if (dot < 0) break;
        at = dot + 1;
      }
    }
  }

  function standing(index, paste, first, text, start) {
    const rx = index.rx;
    const prefix = rx.prefix.exec(paste.raw[first]);
    const before = (prefix ? prefix[0] : "") + text.slice(0, start);
    let after = before;
    let marked = false;
    for (const m of before.matchAll(rx.marker)) {
      if (m[1] === undefined || rx.errorName.test(m[1])) {
        after = before.slice(m.index + m[0].length);
        marked = true;
      }
    }
    if (rx.hint.test(after.toLowerCase()) || quotedInProse(index, after)) return MENTION;
    return marked || !rx.wordChar.test(after) ? ERROR : OTHER;
  }

  // A quotation open at the end of text, opened after a word or "(" but not a class's "(" (lookup._quoted_in_prose).
  function quotedInProse(index, text) {
    const opened = new Map();
    for (const m of text.matchAll(index.rx.quote)) {
      const mark = m[0];
      const kind = index.rx.quoteKinds[mark] || mark;
      if (mark === "\u201d" || mark === "\u00bb") opened.delete(kind);
      else if (mark === "\u201c" || mark === "\u00ab" || !opened.has(kind)) opened.set(kind, m.index);
      else opened.delete(kind);
    }
    for (const at of opened.values()) {
      const before = text.slice(0, at).replace(/[ \t]+$/, "");
      if (before && (before[before.length - 1] === "(" || index.rx.wordChar.test(before[before.length - 1]))
          && !index.rx.classCall.test(before)) return true;
    }
    return false;
  }

  function compareKeys(a, b) {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
  }

  // Which of a record's occurrences stands for it: a template's match (it reads values) before
  // its name, then the best, the last one among equals.
  function strength(h) {
    return [h.named ? 0 : 1, h.spec, h.standing, h.line, h.span[0], -h.order];
  }

  // One match per record, best first; a message is the exact answer of one record only: a
  // record whose best occurrence shares a line with a better-ranked record's follows the exact
  // answers, marked `also` (lookup.py: _rank).
  function rank(index, hits) {
    const best = new Map();
    const named = new Set();
    const ofRecord = new Map();
    for (const h of hits) {
      if (!ofRecord.has(h.record)) ofRecord.set(h.record, []);
      ofRecord.get(h.record).push(h);
      if (h.named) named.add(h.record);
      const prev = best.get(h.record);
      if (!prev || compareKeys(strength(h), strength(prev)) > 0) best.set(h.record, h);
    }
    function order(h) {
      return [named.has(h.record) ? 0 : 1, -h.spec, -h.standing, h.line, h.span[0], h.order];
    }
    const ordered = Array.from(best.values()).sort(function (a, b) { return compareKeys(order(a), order(b)); });
    const exact = [];
    const also = [];
    const claimed = new Set();
    for (const h of ordered) {
      let shared = false;
      for (let k = h.line; k < h.line + h.lines; k++) if (claimed.has(k)) shared = true;
      for (let k = h.line; k < h.line + h.lines; k++) claimed.add(k);
      const reading = fullest(index, h, ofRecord.get(h.record));
      const values = {};
      let template = h.name;
      if (reading.m) {
        const entry = compiled(index, reading.order);
        entry.names.forEach(function (name, i) {
          const raw = reading.m[entry.groups[i]];
          if (raw !== undefined) values[name] = parseValue(index, entry.types[i], raw);
        });
        template = index.templates[reading.order].text;
      }
      (shared ? also : exact).push({
        record: index.records[h.record], exact: !shared, also: shared, score: h.spec, values: values,
        line: h.line, lines: h.lines, text: h.text, span: reading.span, template: template,
        diagnoses: diagnose(index, index.records[h.record].diagnoses, values),
      });
    }
    return exact.concat(also);
  }

  // Of a record's template matches over the same text as `h`, the one that reads the most
  // values (lookup.py: _fullest).
  function fullest(index, h, hits) {
    if (!h.m) return h;
    let chosen = null;
    let key = null;
    for (const o of hits) {
      if (!o.m || o.line !== h.line || o.lines !== h.lines || !(o.span[0] < h.span[1] && h.span[0] < o.span[1])) continue;
      const k = [compiled(index, o.order).names.length].concat(strength(o));
      if (chosen === null || compareKeys(k, key) > 0) { chosen = o; key = k; }
    }
    return chosen;
  }

  function terms(index, text) {
    const out = [];
    const found = text.match(index.rx.term) || [];
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

  function closest(index, lines, among) {
    const bm = bm25Of(index);
    const set = new Set();
    for (const line of lines) for (const t of terms(index, line)) set.add(t);
    const query = Array.from(set).sort();
    const scores = [];
    bm.docs.forEach(function (doc, r) {
      if (among && !among.has(r)) return;
      const norm = index.k1 * (1 - index.b + index.b * bm.lengths[r] / bm.avgdl);
      let score = 0.0;
      for (const term of query) {
        const tf = doc.get(term) || 0;
        if (tf) score += bm.idf.get(term) * tf * (index.k1 + 1) / (tf + norm);
      }
      if (score > 0) scores.push([score, r]);
    });
    scores.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    return scores.map(function (s) {
      return { record: index.records[s[1]], exact: false, also: false, score: Math.round(s[0] * 10000) / 10000,
        values: {}, line: null, lines: 0, text: "", span: [0, 0], template: "", diagnoses: [] };
    });
  }

  /* ---- values ----------------------------------------------------------------------------- */

  function roundHalfEven(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  function parseSize(index, text) {
    const m = index.rx.sizeParts.exec(text.trim());
    if (!m) return null;
    const factor = index.factors[m[2].toLowerCase()];
    if (factor === undefined) return null;
    return roundHalfEven(Number(m[1].replace(",", ".")) * factor);
  }

  function parseValue(index, type, text) {
    if (type === "size") return { type: type, text: text, number: parseSize(index, text) };
    if (type === "int") return { type: type, text: text, number: Number(text.replace(/,/g, "")) };
    if (type === "float") return { type: type, text: text, number: Number(text) };
    if (type === "quoted") return { type: type, text: text.slice(1, -1), number: null };
    return { type: type, text: text, number: null };
  }

  function valueJson(v) {
    const out = { type: v.type, text: v.text };
    if (v.number !== null && v.number !== undefined) {
      out[v.type === "size" ? "bytes" : "value"] = Number.isFinite(v.number) ? v.number : null;
    }
    return out;
  }

  // The entry of `errorkb lookup --json` (Match.as_json): line 1-based, span in characters.
  function matchJson(m) {
    const values = {};
    for (const name of Object.keys(m.values)) values[name] = valueJson(m.values[name]);
    const found = m.line !== null;
    return { id: m.record.id, code: m.record.code || null, title: m.record.title, score: m.score,
      exact: m.exact, also: m.also, values: values, url: m.record.url,
      line: found ? m.line + 1 : null, lines: m.lines,
      span: found ? [chars(m.text, m.span[0]), chars(m.text, m.span[1])] : null,
      text: found ? m.text : null, diagnoses: m.diagnoses };
  }

  /* ---- diagnoses (ext/errorkb/diagnoses.py) --------------------------------------------- */

  const UNDEFINED = {};  // thrown by a division by zero: the diagnosis does not apply
  const COMPARE = {
    "<": function (a, b) { return a < b; }, "<=": function (a, b) { return a <= b; },
    ">": function (a, b) { return a > b; }, ">=": function (a, b) { return a >= b; },
    "==": function (a, b) { return a === b; }, "!=": function (a, b) { return a !== b; },
  };

  function namesIn(tree, required) {
    if (tree[0] === "val" || (tree[0] === "has" && !required)) return [tree[1]];
    const out = [];
    for (const child of tree.slice(1)) if (Array.isArray(child)) for (const name of namesIn(child, required)) out.push(name);
    return out;
  }

  function evaluate(tree, values) {
    const op = tree[0];
    if (op === "num" || op === "size") return tree[1];
    if (op === "val") {
      const number = values[tree[1]].number;
      if (number === null || number === undefined) throw UNDEFINED;
      return number;
    }
    if (op === "has") return Object.prototype.hasOwnProperty.call(values, tree[1]);
    if (op === "not") return !evaluate(tree[1], values);
    if (op === "and") return evaluate(tree[1], values) && evaluate(tree[2], values);
    if (op === "or") return evaluate(tree[1], values) || evaluate(tree[2], values);
    if (op === "neg") return -evaluate(tree[1], values);
    const a = evaluate(tree[1], values);
    const b = evaluate(tree[2], values);
    if (op === "+") return a + b;
    if (op === "-") return a - b;
    if (op === "*") return a * b;
    if (op === "/") {
      if (b === 0) throw UNDEFINED;
      return a / b;
    }
    return COMPARE[op](a, b);
  }

  // "size" or "number": what a checked tree of a message computes.
  function kindOf(tree, values) {
    const op = tree[0];
    if (op === "num") return "number";
    if (op === "size") return "size";
    if (op === "val") return values[tree[1]].type === "size" ? "size" : "number";
    if (op === "neg") return kindOf(tree[1], values);
    const left = kindOf(tree[1], values);
    const right = kindOf(tree[2], values);
    if (op === "+" || op === "-") return left;
    if (op === "*") return left === "size" || right === "size" ? "size" : "number";
    return left === right ? "number" : "size";
  }

  function holdsAll(names, values) {
    for (const name of names) if (!Object.prototype.hasOwnProperty.call(values, name)) return false;
    return true;
  }

  function applies(d, values) {
    if (!holdsAll(namesIn(d[0], true), values)) return false;
    for (const part of d[1]) if (Array.isArray(part) && !holdsAll(namesIn(part[0], true), values)) return false;
    try {
      return evaluate(d[0], values) === true;
    } catch (error) {
      if (error === UNDEFINED) return false;
      throw error;
    }
  }

  // x with `digits` decimals, a tie away from zero (diagnoses.round_half_up).
  function roundHalfUp(x, digits) {
    if (!Number.isFinite(x)) return x > 0 ? "\u221e" : x < 0 ? "-\u221e" : "?";
    x = x + 0;
    return Math.abs(x) >= 1e21 ? x.toExponential(2) : x.toFixed(digits);
  }

  function formatSize(index, n) {
    for (const [unit, factor] of index.shown) if (Math.abs(n) >= factor) return roundHalfUp(n / factor, 2) + " " + unit;
    return roundHalfUp(n, 0) + " bytes";
  }

  function say(index, d, values) {
    let out = "";
    for (const part of d[1]) {
      if (!Array.isArray(part)) { out += part; continue; }
      const tree = part[0];
      const form = part[1];
      if (tree[0] === "val" && !form) { out += values[tree[1]].text; continue; }
      let x;
      try {
        x = evaluate(tree, values);
      } catch (error) {
        if (error !== UNDEFINED) throw error;
        out += "?";
        continue;
      }
      if (form === "%") out += roundHalfUp(x * 100, 0) + "%";
      else if (form === "size" || kindOf(tree, values) === "size") out += formatSize(index, x);
      else out += roundHalfUp(x, Number.isInteger(x) ? 0 : 2);
    }
    return out;
  }

  // The record's diagnoses that the values meet: {message, fix, fix_title} (diagnoses.diagnose).
  function diagnose(index, diagnoses, values) {
    const out = [];
    for (const d of diagnoses) {
      if (applies(d, values)) out.push({ message: say(index, d, values), fix: d[2], fix_title: d[3] });
    }
    return out;
  }

  return {
    INDEX_VERSION: INDEX_VERSION, prepare: prepare, lookup: lookup, normalise: normalise,
    looksBinary: looksBinary, diagnose: diagnose, formatSize: formatSize, compileTemplate: compileTemplate,
    parseSize: parseSize,
    matchJson: matchJson, terms: terms, chars: chars,
  };
});
