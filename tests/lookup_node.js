// Runs pastes through the browser's lookup (ext/errorkb/site/static/errorkb-lookup-core.js) under node.
// Usage: node lookup_node.js INDEX.json < [{"q": "...", "top": 5}, ...]
// Prints one JSON list: per paste {"matches": [matchJson entries], "notices": [...], "kind": {...} or null}.
"use strict";
const fs = require("fs");
const path = require("path");
const core = require(path.join(__dirname, "..", "ext", "errorkb", "site", "static", "errorkb-lookup-core.js"));

const index = core.prepare(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
const jobs = JSON.parse(fs.readFileSync(0, "utf8"));
const out = jobs.map(function (job) {
  const result = core.lookup(index, job.q, job.top || 5);
  return { matches: result.matches.map(core.matchJson), notices: result.notices, kind: result.kind || null };
});
process.stdout.write(JSON.stringify(out));
