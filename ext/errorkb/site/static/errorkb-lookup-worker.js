/* errorkb paste lookup, off the main thread: loads the index on the first search, then answers
 * {id, q, top, indexUrl} with {id, result, ms} or {id, error}. */
"use strict";
importScripts("errorkb-lookup-core.js");

let loading = null;

function load(url) {
  if (!loading) {
    loading = fetch(url)
      .then(function (response) {
        if (!response.ok) throw new Error("the lookup index could not be loaded (HTTP " + response.status + ")");
        return response.json();
      })
      .then(self.ErrorkbLookup.prepare);
    loading.catch(function () { loading = null; });
  }
  return loading;
}

self.onmessage = function (event) {
  const job = event.data;
  load(job.indexUrl)
    .then(function (index) {
      const start = performance.now();
      const result = self.ErrorkbLookup.lookup(index, job.q, job.top);
      self.postMessage({ id: job.id, result: result, ms: performance.now() - start });
    })
    .catch(function (error) {
      self.postMessage({ id: job.id, error: String((error && error.message) || error) });
    });
};
