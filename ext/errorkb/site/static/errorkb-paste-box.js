/* errorkb paste box (the errorkb-paste directive): opens the lookup page with the paste, which
 * never leaves the browser.  It goes through the tab's session storage; where storage is
 * refused (full, or switched off), through the address's fragment, which is not sent either.
 * The button's click does it, without submitting the form: the browser's form machinery would
 * first go through the whole paste, which takes seconds on a long log.  The box keeps the paste
 * for the Back button: the lookup page takes the one handed to it, and this copy stays. */
(function () {
  "use strict";
  const box = document.getElementById("errorkb-paste-q");
  if (!box) return;
  const button = box.form.querySelector("button");
  const HANDED = "errorkb-paste";  // read and removed by the lookup page
  const KEPT = "errorkb-paste-box";  // what this box showed, for the Back button

  function store(key, value) {
    try {
      window.sessionStorage.setItem(key, value);
      return true;
    } catch (error) {
      return false;
    }
  }

  function open(event) {
    event.preventDefault();
    if (!box.value.trim()) {
      box.reportValidity();
      return;
    }
    const url = new URL(box.form.getAttribute("action"), document.baseURI);
    if (!store(HANDED, box.value)) url.hash = "q=" + encodeURIComponent(box.value);
    store(KEPT, box.value);
    window.location.assign(url.href);
  }

  function restore() {
    if (box.value) return;
    try {
      box.value = window.sessionStorage.getItem(KEPT) || "";
    } catch (error) {
      // storage refused: nothing was kept
    }
  }

  button.addEventListener("click", open);
  box.form.addEventListener("submit", open);
  window.addEventListener("pageshow", restore);
  restore();
})();
