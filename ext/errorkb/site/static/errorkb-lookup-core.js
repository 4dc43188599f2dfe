/* errorkb paste lookup: the browser twin of ext/errorkb/core/lookup.py (same steps, same answers).
 *
 * A plain script usable from node (module.exports) and from a Web Worker (self.ErrorkbLookup).
 * prepare(indexJson) -> index; lookup(index, paste, top) -> {matches, notices}.
 * Only what must run in the browser is here: cleaning a paste, matching, ranking, BM25 and the
 * evaluation of diagnoses.  The index holds everything else as Python worked it out: each
 * template's regular expression (the same in both languages, see core/templates/writer.py),
 * its placeholders' groups, its key and rarest run, each record's BM25 terms, each diagnosis's
 * tree, and the rules of lookup.py (limits, rank keys, character ranges, expressions).  Each
 * function names its Python twin.  Positions inside the engine are JavaScript string offsets;
 * matchJson gives them in characters (code points), as Python.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.ErrorkbLookup = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const INDEX_VERSION = 9;  // lookup.INDEX_VERSION: the format this script reads
  const MENTION = 0, OTHER = 1, ERROR = 2;  // standings (lookup.MENTION ...)
  const NON_ASCII = /[^\x00-\x7f]/;  // lower-casing such a line could change its words: done word by word

  /* ---- characters, not UTF-16 units ------------------------------------------------------- */

  // Whether s[i] and s[i + 1] are one character (Python's strings count characters already).
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

  /* ---- the index -------------------------------------------------------------------------- */

  // A character class of ranges [first, last] (Python removes them with str.translate tables).
  function rangeClass(ranges) {
    return new RegExp("[" + ranges.map(function (r) {
      return "\\u{" + r[0].toString(16) + "}-\\u{" + r[1].toString(16) + "}";
    }).join("") + "]+", "gu");
  }

  // The term counts of a record as the index ships them (lookup._counted).
  function counted(compact) {
    const counts = new Map();
    for (const part of compact.split(" ")) {
      if (!part) continue;
      const star = part.indexOf("*");
      if (star < 0) counts.set(part, 1);
      else counts.set(part.slice(0, star), Number(part.slice(star + 1)));
    }
    return counts;
  }

  // One array per record: [id, code, title, url, fixes, terms, templates, aliases, diagnoses, costs,
  // labels, readings];
  // each template [pieces, placeholders, specificity, key, run, examples] (LookupIndex.from_json).
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
      tracebackHeader: new RegExp("^(?:" + t.traceback_header + ")", "u"),
      marker: new RegExp(t.marker, "gu"), errorName: new RegExp(t.error_name, "u"), hint: new RegExp(t.hint, "u"),
      quote: new RegExp(t.quote, "gu"), classCall: new RegExp(t.class_call, "u"),
      literalPrefix: new RegExp(t.literal_prefix, "u"), proseWord: new RegExp(t.prose_word, "u"),
      compared: new RegExp(t.compared, "u"), token: new RegExp(t.token, "gu"),
      isToken: new RegExp("^(?:" + t.token + ")$", "u"),
      dropped: rangeClass(t.dropped), spaces: rangeClass(t.spaces), notText: rangeClass(t.not_text),
    };
    const records = [];
    const terms = [];
    const templates = [];
    data.records.forEach(function (row, r) {
      records.push({ id: row[0], code: row[1], title: row[2], url: row[3], fixes: row[4], aliases: row[7],
        diagnoses: row[8], costs: row[9], labels: row[10], readings: row[11] });
      terms.push(row[5]);
      for (const tpl of row[6]) {
        templates.push({ r: r, pieces: tpl[0], placeholders: tpl[1], specificity: tpl[2], key: tpl[3], run: tpl[4],
          examples: tpl[5], summary: false, regex: null, fields: null });
      }
    });
    for (const i of data.summaries) templates[i].summary = true;  // messages marked summary_line
    const byKey = new Map();
    const always = [];
    templates.forEach(function (tpl, i) {
      if (tpl.key === null) always.push(i);
      else {
        if (!byKey.has(tpl.key)) byKey.set(tpl.key, []);
        byKey.get(tpl.key).push(i);
      }
    });
    const byNameWord = new Map();  // the last word of a name -> the names it ends
    const phrases = new Map(data.phrases);  // a name of several words -> where a line writes it
    records.forEach(function (rec, r) {
      for (const text of new Set([rec.id, rec.code].concat(rec.aliases))) {
        const phrase = phrases.get(text);
        if (!text || !(phrase || rx.isToken.test(text))) continue;
        const name = { record: r, text: text, folded: text.toLowerCase(), digits: rx.digits.test(text),
          phrase: phrase ? new RegExp(phrase, "giu") : null };
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
    return { kinds: kinds, records: records, terms: terms, templates: templates, rx: rx,
      limits: data.limits, scanFrom: data.limits.scan_from, k1: data.bm25[0], b: data.bm25[1], ignored: new Set(data.ignored), rank: data.rank,
      report: data.report, notices: data.notices, factors: data.units.factors, shown: data.units.shown,
      shownDecimal: data.units.shown_decimal, decimalUnits: data.units.decimal, letterUnits: data.units.letters,
      byKey: byKey, always: always, byNameWord: byNameWord, keys: keys, bm25: null };
  }

  // Compiled on first use: a search compiles only the templates it short-lists (Candidate.regex,
  // Entry.fields): the pieces joined, and each placeholder's [name, type, group].
  function compiled(index, e) {
    const tpl = index.templates[e];
    if (!tpl.regex) {
      tpl.regex = new RegExp(tpl.pieces.join(""), "gu");
      const parts = tpl.placeholders.split(" ").filter(Boolean);
      tpl.fields = [];
      for (let k = 0; k < parts.length; k += 3) tpl.fields.push([parts[k], parts[k + 1], Number(parts[k + 2])]);
    }
    return tpl;
  }

  // The closest-match ranking's statistics, worked out on the first search that needs them
  // (LookupIndex.bm25): the terms of each record's id, code and title, those it ships, and
  // each template's literal pieces counted once for it and once for each example.
  function bm25Of(index) {
    if (index.bm25) return index.bm25;
    const docs = index.records.map(function (rec, r) {
      const doc = counted(index.terms[r]);
      for (const term of terms(index, [rec.id, rec.code, rec.title].join("\n"))) doc.set(term, (doc.get(term) || 0) + 1);
      return doc;
    });
    for (const tpl of index.templates) {
      const doc = docs[tpl.r];
      for (const term of terms(index, tpl.pieces.filter(function (p, i) { return i % 2; }).join(""))) {
        doc.set(term, (doc.get(term) || 0) + 1 + tpl.examples);
      }
    }
    const lengths = [];
    const docFreq = new Map();
    for (const doc of docs) {
      let length = 0;
      for (const [term, n] of doc) {
        docFreq.set(term, (docFreq.get(term) || 0) + 1);
        length += n;
      }
      lengths.push(length);
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

  // Whether most of a paste is not text (lookup.looks_binary).
  function looksBinary(index, paste) {
    const odd = paste.length - paste.replace(index.rx.notText, "").length;
    // A character takes one or two units of a string: counting them is needed only near the edge.
    return odd * 4 > paste.length && odd > chars(paste) / 2;
  }

  // A paste cut into searchable lines (lookup.normalise).
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

  // Whether the paste has one non-blank line (Paste.one_line).
  function oneLine(paste) {
    if (paste.oneLine === null) {
      let n = 0;
      for (const line of paste.lines) if (line.trim()) n += 1;
      paste.oneLine = n === 1;
    }
    return paste.oneLine;
  }

  // The records whose messages appear in a paste, best first (lookup.lookup).
  function lookup(index, paste, top) {
    top = top || 5;
    if (index.rx.blank.test(paste)) return { matches: [], notices: [notice(index, "empty")] };
    if (looksBinary(index, paste)) return { matches: [], notices: [notice(index, "binary")] };
    const norm = normalise(index, paste);
    const matches = exactMatches(index, norm);
    if (matches.length && matches[0].exact) return { matches: matches.slice(0, top), notices: norm.notices, kind: null };
    const kind = classify(index.kinds, norm.lines.join("\n"));
    const shown = new Set(matches.map(function (m) { return m.record.id; }));
    const near = closest(index, norm.lines, kind ? kind.records : null).filter(function (m) { return !shown.has(m.record.id); });
    return { matches: matches.concat(near).slice(0, top), notices: norm.notices,
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

  // The words of a line, lower case, ASCII letters only (matcher.LineWords).
  function lineWords(index, line) {
    if (!NON_ASCII.test(line)) return line.toLowerCase().match(index.rx.words) || [];
    const found = line.match(index.rx.words);
    if (!found) return [];
    for (let k = 0; k < found.length; k++) found[k] = found[k].toLowerCase();
    return found;
  }

  // The lines that are the last copy of their text and of their log prefix, its numbers aside
  // (lookup.last_copies).
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

  // Records with a template that matches a line or two adjacent lines joined, or whose code, id
  // or alias a line names, ranked (lookup.exact_matches).
  function exactMatches(index, paste) {
    const lines = paste.lines;
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
    for (const e of index.always) shortListed.set(e, linesHolding(index.templates[e].run));
    const searched = new Map();  // the same text is searched once per template
    const hits = [];
    for (const [e, found] of shortListed) {
      let lines = found;
      if (found.length > index.scanFrom) {  // keep the lines near a copy of its run
        const near = new Set();
        for (const j of linesHolding(index.templates[e].run)) { near.add(j - 1); near.add(j); near.add(j + 1); }
        lines = found.filter(function (i) { return near.has(i); });
      }
      templateHits(index, paste, e, lines, searched, hits);
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
    const templated = exact.length > 0;
    for (const [i, names] of named) nameHits(index, paste, i, names, matched.has(i), spans.get(i) || [], templated, exact);
    const covered = new Set();
    for (const h of exact) for (let k = h.line; k < h.line + h.lines; k++) covered.add(k);
    return rank(index, exact, function (line) { return saysWhy(index, paste, line, covered); });
  }

  // Every occurrence of entry e in a short-listed line; where the line alone gives none, in it
  // joined to the line before or after, crossing the join (matcher.LineMatcher.hits).
  function templateHits(index, paste, e, shortListed, searched, hits) {
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
        named: false, specificity: entry.specificity, order: e, m: m, fields: entry.fields.length,
        summary: index.templates[e].summary });
    }
    for (const i of new Set(shortListed)) {
      const text = lines[i];
      if (text.includes(entry.run)) {
        const found = search(text);
        if (found.length) {
          for (const m of found) hit(i, 1, text, m);
          continue;
        }
      }
      for (const first of [i - 1, i]) {
        const other = first === i ? i + 1 : first;
        if (first < 0 || other >= lines.length || tried.has(first) || !lines[other].trim()) continue;
        if (!text.includes(entry.run) && !lines[other].includes(entry.run)) continue;
        tried.add(first);
        const joined = lines[first] + " " + lines[first + 1];
        const join = lines[first].length;
        for (const m of search(joined)) if (m.index < join && join < m.index + m[0].length - 1) hit(first, 2, joined, m);
      }
    }
  }

  // The names that line i writes: as a token or the end of a dotted one, or, a name of several
  // words, as a whole; on a matched line, not one that labels the message ("Name:"), nor, where a
  // template matched the paste, one that heads an IPython traceback, nor one inside another
  // record's match (lookup._name_hits).
  function nameHits(index, paste, i, names, matched, covered, templated, hits) {
    const text = paste.lines[i];
    const found = [];  // [name, start, end]
    const wanted = new Map();
    for (const name of names) {
      if (name.phrase === null) {
        if (!wanted.has(name.folded)) wanted.set(name.folded, []);
        wanted.get(name.folded).push(name);
      } else {
        for (const m of text.matchAll(name.phrase)) found.push([name, m.index, m.index + m[0].length]);
      }
    }
    for (const m of text.matchAll(index.rx.token)) {
      const token = m[0].toLowerCase();
      let at = 0;
      for (;;) {
        for (const name of wanted.get(token.slice(at)) || []) found.push([name, m.index + at, m.index + m[0].length]);
        const dot = token.indexOf(".", at);
        if (dot < 0) break;
        at = dot + 1;
      }
    }
    for (const [name, start, end] of found) {
      if (matched && text.slice(end).replace(/^[ \t]+/, "").startsWith(":")) continue;
      if (templated && index.rx.tracebackHeader.test(text.slice(end))) continue;
      if (name.digits && !oneLine(paste)) continue;
      if (covered.some(function (c) { return c[0] <= start && end <= c[1] && c[2] !== name.record; })) continue;
      if (index.rx.compared.test(text.slice(0, start))) continue;
      let specificity = 0;
      for (const c of name.text) if (!/\s/.test(c)) specificity += 1;
      hits.push({ record: name.record, line: i, lines: 1, text: text, span: [start, end],
        standing: Math.max(OTHER, standing(index, paste, i, text, start)), named: true, specificity: specificity,
        order: index.templates.length + name.record, m: null, name: name.text, fields: 0, summary: false });
    }
  }

  // How a match at start of text stands: ERROR, OTHER or MENTION (lookup.standing).
  function standing(index, paste, first, text, start) {
    const rx = index.rx;
    const before = withPrefix(index, paste, first, text.slice(0, start));
    let after = before;
    let marked = false;
    for (const m of errorMarkers(index, before)) {
      after = before.slice(m.index + m[0].length);
      marked = true;
    }
    if (rx.hint.test(after.toLowerCase()) || quotedInProse(index, after)) return MENTION;
    return marked || !rx.wordChar.test(after) ? ERROR : OTHER;
  }

  // Text of line i behind the log prefix that line was cut from (lookup._with_prefix).
  function withPrefix(index, paste, i, text) {
    const prefix = index.rx.prefix.exec(paste.raw[i]);
    return (prefix ? prefix[0] : "") + text;
  }

  // The markers of an error in text, one at a time (lookup._error_markers).
  function* errorMarkers(index, text) {
    for (const m of text.matchAll(index.rx.marker)) {
      if (m[1] === undefined || index.rx.errorName.test(m[1])) yield m;
    }
  }

  // Whether one of the lines before line is an error line that no record matched, with words
  // after its marker, not after a hint or in a quotation (lookup.says_why).
  function saysWhy(index, paste, line, covered) {
    const rx = index.rx;
    for (let i = Math.max(0, line - index.limits.why); i < line; i++) {
      if (covered.has(i) || !paste.lines[i]) continue;
      const text = withPrefix(index, paste, i, paste.lines[i]);
      const first = errorMarkers(index, text).next().value;
      if (!first || !rx.wordChar.test(text.slice(first.index + first[0].length))) continue;
      const before = text.slice(0, first.index);
      if (!rx.hint.test(before.toLowerCase()) && !quotedInProse(index, before)) return true;
    }
    return false;
  }

  // A quotation open at the end of text, opened after a plain word or "(" but not a class's "(", a literal's
  // prefix aside (lookup._quoted_in_prose).
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
      const before = text.slice(0, at).replace(index.rx.literalPrefix, "").replace(/[ \t]+$/, "");
      const called = before.endsWith("(") && before.slice(0, -1).replace(/^[ \t]+|[ \t]+$/g, "") !== "";
      if (before && (called || index.rx.proseWord.test(before))
          && !index.rx.classCall.test(before)) return true;
    }
    return false;
  }

  // Python's comparison of tuples.
  function compareKeys(a, b) {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
  }

  // A hit's key by a rule of the index's rank (Hit.key); named: the records named in the paste;
  // yielding: those whose best occurrence is a summary line that yields.
  function keyOf(h, rule, named, yielding) {
    const fields = { named: h.named ? 1 : 0, record_named: named.has(h.record) ? 1 : 0, specificity: h.specificity,
      standing: h.standing, line: h.line, start: h.span[0], order: h.order, fields: h.fields,
      summary: h.summary ? 1 : 0, yields: yielding && yielding.has(h.record) ? 1 : 0 };
    return rule.map(function (r) { return r[1] * fields[r[0]]; });
  }

  // One match per record, best first; a message is the exact answer of one record only: each
  // record at its best occurrence, read by its fullest match there, in the index's order; a
  // record whose best occurrence shares a line with a better-ranked record's follows the exact
  // answers, marked `also`, and so does one whose best occurrence is a summary line when another
  // record matched otherwise or why finds an error line before it that none matched (lookup._rank).
  function rank(index, hits, why) {
    const named = new Set();
    for (const h of hits) if (h.named) named.add(h.record);
    const best = new Map();
    const ofRecord = new Map();
    for (const h of hits) {
      if (!ofRecord.has(h.record)) ofRecord.set(h.record, []);
      ofRecord.get(h.record).push(h);
      const prev = best.get(h.record);
      if (!prev || compareKeys(keyOf(h, index.rank.best, named), keyOf(prev, index.rank.best, named)) < 0) {
        best.set(h.record, h);
      }
    }
    const leading = new Set();
    for (const [r, h] of best) if (!h.summary) leading.add(r);
    const yielding = new Set();
    for (const [r, h] of best) {
      if (h.summary && (leading.size > 1 || (leading.size === 1 && !leading.has(r)) || why(h.line))) yielding.add(r);
    }
    const ordered = Array.from(best.values()).sort(function (a, b) {
      return compareKeys(keyOf(a, index.rank.order, named, yielding), keyOf(b, index.rank.order, named, yielding));
    });
    const exact = [];
    const also = [];
    const claimed = new Set();
    for (const h of ordered) {
      let shared = yielding.has(h.record);
      for (let k = h.line; k < h.line + h.lines; k++) if (claimed.has(k)) shared = true;
      for (let k = h.line; k < h.line + h.lines; k++) claimed.add(k);
      const reading = fullest(index, h, ofRecord.get(h.record), named);
      const values = {};
      if (reading.m) {
        for (const [name, type, group] of index.templates[reading.order].fields) {
          const raw = reading.m[group];
          if (raw !== undefined) values[name] = parseValue(index, type, raw);
        }
      }
      (shared ? also : exact).push(withMeaning(index, {
        record: index.records[h.record], exact: !shared, also: shared, score: h.specificity, values: values,
        line: h.line, lines: h.lines, text: h.text, span: reading.span,
      }));
    }
    return exact.concat(also);
  }

  // Of a record's template matches over the same text as h, the one that reads the most values
  // (lookup._fullest).
  function fullest(index, h, hits, named) {
    if (!h.m) return h;
    let chosen = null;
    let key = null;
    for (const o of hits) {
      if (!o.m || o.line !== h.line || o.lines !== h.lines || !(o.span[0] < h.span[1] && h.span[0] < o.span[1])) continue;
      const k = keyOf(o, index.rank.fullest, named);
      if (chosen === null || compareKeys(k, key) < 0) { chosen = o; key = k; }
    }
    return chosen;
  }

  // BM25 terms, but the words the index ignores (lookup.terms).
  function terms(index, text) {
    const out = [];
    const found = text.match(index.rx.term) || [];
    for (const m of found) {
      const word = m.toLowerCase();
      if (word.length >= 2 && !index.ignored.has(word)) out.push(word);
      if (word.indexOf("_") >= 0) {
        for (const part of word.split("_")) {
          if (part.length >= 2 && !(part[0] >= "0" && part[0] <= "9") && !index.ignored.has(part)) out.push(part);
        }
      }
    }
    return out;
  }

  // BM25 over the records' terms (of the records among, or all), labelled closest, not exact
  // (lookup.closest).
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
      return withMeaning(index, { record: index.records[s[1]], exact: false, also: false,
        score: Math.round(s[0] * 10000) / 10000, values: {}, line: null, lines: 0, text: "", span: [0, 0] });
    });
  }

  /* ---- values ----------------------------------------------------------------------------- */

  // Python's round() of a number to a whole one.
  function roundHalfEven(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  // Bytes in a size (values.parse_size).
  function parseSize(index, text) {
    const m = index.rx.sizeParts.exec(text.trim());
    if (!m) return null;
    const factor = index.factors[m[2].toLowerCase()];
    if (factor === undefined) return null;
    return roundHalfEven(Number(m[1].replace(",", ".")) * factor);
  }

  // A placeholder's value (values.Value.parse).
  function parseValue(index, type, text) {
    if (type === "size") return { type: type, text: text, number: parseSize(index, text) };
    if (type === "int" || type === "status") return { type: type, text: text, number: Number(text.replace(/,/g, "")) };
    if (type === "float") return { type: type, text: text, number: Number(text) };
    if (type === "quoted" || type === "bracketed") return { type: type, text: text.slice(1, -1), number: null };
    return { type: type, text: text, number: null };
  }

  // A value as `errorkb lookup --json` gives it, with its label (values.Value.as_json, Match.as_json).
  function valueJson(v, label) {
    const out = { type: v.type, text: v.text };
    if (v.number !== null && v.number !== undefined) {
      out[v.type === "size" ? "bytes" : "value"] = Number.isFinite(v.number) ? v.number : null;
    }
    out.label = label;
    return out;
  }

  // The entry of `errorkb lookup --json` (Match.as_json): line 1-based, span in characters.
  function matchJson(m) {
    const values = {};
    for (const name of Object.keys(m.values)) values[name] = valueJson(m.values[name], m.labels[name]);
    const found = m.line !== null;
    return { id: m.record.id, code: m.record.code || null, title: m.record.title, score: m.score,
      exact: m.exact, also: m.also, values: values, url: m.record.url,
      line: found ? m.line + 1 : null, lines: m.lines,
      span: found ? [chars(m.text, m.span[0]), chars(m.text, m.span[1])] : null,
      text: found ? m.text : null, readings: m.readings, diagnoses: m.diagnoses, fixes: m.fixes };
  }

  /* ---- diagnoses (ext/errorkb/core/diagnoses.py) ---------------------------------------- */

  const UNDEFINED = {};  // thrown by a division by zero: the diagnosis does not apply
  const COMPARE = {
    "<": function (a, b) { return a < b; }, "<=": function (a, b) { return a <= b; },
    ">": function (a, b) { return a > b; }, ">=": function (a, b) { return a >= b; },
    "==": function (a, b) { return a === b; }, "!=": function (a, b) { return a !== b; },
  };

  // The values a tree names (diagnoses.names_in).
  function namesIn(tree, required) {
    if (tree[0] === "val" || (tree[0] === "has" && !required)) return [tree[1]];
    const out = [];
    for (const child of tree.slice(1)) if (Array.isArray(child)) for (const name of namesIn(child, required)) out.push(name);
    return out;
  }

  // A tree's value, or UNDEFINED thrown (diagnoses.evaluate).
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

  // "size" or "number": what a checked tree of a message computes (diagnoses.kind_of).
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

  // Whether the values hold every one of names.
  function holdsAll(names, values) {
    for (const name of names) if (!Object.prototype.hasOwnProperty.call(values, name)) return false;
    return true;
  }

  // Whether a diagnosis holds for the values (diagnoses.applies).
  function applies(d, values) {
    if (d[0] !== null && !holdsAll(namesIn(d[0], true), values)) return false;
    for (const part of d[1]) if (Array.isArray(part) && !holdsAll(namesIn(part[0], true), values)) return false;
    if (d[0] === null) return true;
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

  // A number of bytes as a size, in binary or decimal units (diagnoses.format_size).
  function formatSize(index, n, decimal) {
    for (const [unit, factor] of decimal ? index.shownDecimal : index.shown) {
      if (Math.abs(n) >= factor) return roundHalfUp(n / factor, 2) + " " + unit;
    }
    return roundHalfUp(n, 0) + " bytes";
  }

  // The unit of a size as printed, lower case (diagnoses._unit).
  function unitOf(text) {
    return text.trim().replace(/^[0-9.,]+/, "").trim().toLowerCase();
  }

  // The message, its sizes in one unit system (diagnoses.say).
  function say(index, d, values) {
    let decimal = false;
    for (const part of d[1]) {
      if (!Array.isArray(part)) continue;
      for (const name of namesIn(part[0], true)) {
        if (values[name].type === "size" && index.decimalUnits.includes(unitOf(values[name].text))) decimal = true;
      }
    }
    let out = "";
    for (const part of d[1]) {
      if (!Array.isArray(part)) { out += part; continue; }
      const tree = part[0];
      const form = part[1];
      if (tree[0] === "val" && !form && !(values[tree[1]].type === "size"
          && index.letterUnits.includes(unitOf(values[tree[1]].text)))) {
        out += values[tree[1]].text;
        continue;
      }
      let x;
      try {
        x = evaluate(tree, values);
      } catch (error) {
        if (error !== UNDEFINED) throw error;
        out += "?";
        continue;
      }
      if (form === "%") out += roundHalfUp(x * 100, 0) + "%";
      else if (form === "size" || kindOf(tree, values) === "size") out += formatSize(index, x, decimal);
      else out += roundHalfUp(x, Number.isInteger(x) ? 0 : 2);
    }
    return out;
  }

  // The record's diagnoses that the values meet: {message, fix, fix_title, rules_out} (diagnoses.diagnose).
  function diagnose(index, diagnoses, values) {
    const out = [];
    for (const d of diagnoses) {
      if (applies(d, values)) out.push({ message: say(index, d, values), fix: d[2], fix_title: d[3], rules_out: d[4] });
    }
    return out;
  }

  // The sentences of the readings that hold (diagnoses.read).
  function read(index, readings, values) {
    return readings.filter(function (r) { return applies(r, values); }).map(function (r) { return say(index, r, values); });
  }

  // The fixes in the order the values call for (diagnoses.fixes_in_order).
  function fixesInOrder(titles, costs, found) {
    const pointed = found.filter(function (d) { return !d.rules_out; }).map(function (d) { return d.fix; });
    const ruledOut = new Set(found.filter(function (d) { return d.rules_out && !pointed.includes(d.fix); })
      .map(function (d) { return d.fix; }));
    const numbers = Array.from(new Set(pointed.concat(titles.map(function (t, i) { return i + 1; }))));
    const ordered = numbers.filter(function (n) { return !ruledOut.has(n); })
      .concat(numbers.filter(function (n) { return ruledOut.has(n); }));
    return ordered.map(function (n) {
      return { number: n, title: titles[n - 1], cost: costs[n - 1], anchor: "fix-" + n,
        diagnosed: pointed.includes(n), ruled_out: ruledOut.has(n) };
    });
  }

  // A value's name in words (diagnoses.label_of).
  function labelOf(name, labels) {
    if (Object.prototype.hasOwnProperty.call(labels, name)) return labels[name];
    const words = name.replace(/([A-Za-z])(?=[0-9])/g, "$1 ").replace(/_/g, " ").trim();
    return words.slice(0, 1).toUpperCase() + words.slice(1);
  }

  // A match with what its values mean: their labels, readings, diagnoses and the fixes in order.
  function withMeaning(index, match) {
    const rec = match.record;
    match.labels = {};
    for (const name of Object.keys(match.values)) match.labels[name] = labelOf(name, rec.labels);
    match.readings = read(index, rec.readings, match.values);
    match.diagnoses = diagnose(index, rec.diagnoses, match.values);
    match.fixes = fixesInOrder(rec.fixes, rec.costs, match.diagnoses);
    return match;
  }

  return {
    INDEX_VERSION: INDEX_VERSION, prepare: prepare, lookup: lookup, normalise: normalise,
    looksBinary: looksBinary, diagnose: diagnose, read: read, labelOf: labelOf, formatSize: formatSize,
    parseSize: parseSize,
    matchJson: matchJson, terms: terms, chars: chars,
  };
});
