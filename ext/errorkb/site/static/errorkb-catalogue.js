/* errorkb: filters and sorting for the catalogue table; their state lives in the query string. */
"use strict";
(function () {
  const table = document.querySelector("table.errorkb-catalogue");
  const form = document.querySelector("form.errorkb-filters");
  if (!table || !form) return;
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const headers = Array.from(table.tHead.rows[0].cells);
  // Each column's key, from its heading's class errorkb-col-<key>: the keys of ?sort=.
  const columns = headers.map((cell) =>
    (Array.from(cell.classList).find((c) => c.startsWith("errorkb-col-") && c !== "errorkb-col-field") || "")
      .slice("errorkb-col-".length));
  const fields = Array.from(form.elements).filter((el) => el.name);
  const count = form.querySelector(".errorkb-count");

  // Each row's text, read once; its values are its classes, errorkb-f-<field>-<value>.
  const texts = new Map(rows.map((row) => [row, row.textContent.toLowerCase()]));

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
    for (const field of fields) {
      if (!field.value) continue;
      if (field.name === "q") {
        if (!texts.get(row).includes(field.value.trim().toLowerCase())) return false;
      } else if (!row.classList.contains(`errorkb-f-${field.name}-${field.value}`)) {
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
    table.hidden = shown === 0;
    empty.hidden = shown !== 0;
  }

  // What an empty selection says, in place of a table with only its header.
  const empty = document.createElement("p");
  empty.className = "errorkb-catalogue-empty";
  empty.textContent = "No error matches these filters: clear one, or paste the error's text in the box above.";
  empty.hidden = true;
  table.after(empty);

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
