/* errorkb: filters and sorting for the catalogue table; their state lives in the query string. */
"use strict";
(function () {
  const table = document.querySelector("table.errorkb-catalogue");
  const form = document.querySelector("form.errorkb-filters");
  if (!table || !form) return;
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const headers = Array.from(table.tHead.rows[0].cells);
  const columns = ["code", "error", "message", "platforms", "phase"];
  const fields = Array.from(form.elements).filter((el) => el.name);
  const count = form.querySelector(".errorkb-count");

  // Each row's values, read once from its classes: errorkb-f-<dimension>-<value>.
  const values = new Map(rows.map((row) => {
    const byDimension = {};
    for (const cls of row.classList) {
      if (!cls.startsWith("errorkb-f-")) continue;
      const rest = cls.slice("errorkb-f-".length);
      const cut = rest.indexOf("-");
      (byDimension[rest.slice(0, cut)] ||= []).push(rest.slice(cut + 1));
    }
    return [row, { byDimension, text: row.textContent.toLowerCase() }];
  }));

  function readState() {
    const params = new URLSearchParams(window.location.search);
    for (const field of fields) field.value = params.get(field.name) || "";
    for (const field of fields) {  // a value no option offers shows everything
      if (field.tagName === "SELECT" && field.selectedIndex < 0) field.value = "";
    }
    return params.get("sort") || "";
  }

  let sort = readState();

  function writeState() {
    const params = new URLSearchParams();
    for (const field of fields) if (field.value) params.set(field.name, field.value);
    if (sort) params.set("sort", sort);
    const query = params.toString();
    window.history.replaceState(null, "", (query ? "?" + query : window.location.pathname) + window.location.hash);
  }

  function matches(row) {
    const { byDimension, text } = values.get(row);
    for (const field of fields) {
      if (!field.value) continue;
      if (field.name === "q") {
        if (!text.includes(field.value.trim().toLowerCase())) return false;
      } else if (!(byDimension[field.name] || []).includes(field.value)) {
        return false;
      }
    }
    return true;
  }

  function apply() {
    const descending = sort.startsWith("-");
    const column = columns.indexOf(sort.replace(/^-/, ""));
    const ordered = rows.slice();
    if (column >= 0) {
      const key = (row) => row.cells[column].textContent.trim();
      ordered.sort((a, b) => key(a).localeCompare(key(b), undefined, { numeric: true, sensitivity: "base" }));
      if (descending) ordered.reverse();
    }
    let shown = 0;
    for (const row of ordered) {
      row.hidden = !matches(row);
      shown += row.hidden ? 0 : 1;
      body.appendChild(row);
    }
    headers.forEach((th, i) => {
      th.setAttribute("aria-sort", i === column ? (descending ? "descending" : "ascending") : "none");
    });
    count.textContent = shown === rows.length ? `${rows.length} errors` : `${shown} of ${rows.length} errors`;
  }

  headers.forEach((th, i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "errorkb-sort";
    button.title = "Sort by this column";
    button.append(...th.childNodes);
    th.appendChild(button);
    button.addEventListener("click", () => {
      sort = sort === columns[i] ? "-" + columns[i] : columns[i];
      writeState();
      apply();
    });
  });
  form.addEventListener("input", () => { writeState(); apply(); });
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("reset", () => {
    window.setTimeout(() => { sort = ""; writeState(); apply(); });
  });
  form.hidden = false;
  apply();
})();
