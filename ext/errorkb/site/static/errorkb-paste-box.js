/* errorkb paste box (the errorkb-paste directive): opens the lookup page with the paste, which
 * never leaves the browser.  It goes through the tab's session storage; where storage is
 * refused (full, or switched off), through the address's fragment, which is not sent either.
 * The button's click does it, without submitting the form: the browser's form machinery would
 * first go through the whole paste, which takes seconds on a long log. */
(function () {
  "use strict";
  const box = document.getElementById("errorkb-paste-q");
  if (!box) return;
  const button = box.form.querySelector("button");

  function open(event) {
    event.preventDefault();
    if (!box.value.trim()) {
      box.reportValidity();
      return;
    }
    const url = new URL(box.form.getAttribute("action"), document.baseURI);
    try {
      window.sessionStorage.setItem("errorkb-paste", box.value);
    } catch (error) {
      url.hash = "q=" + encodeURIComponent(box.value);
    }
    window.location.assign(url.href);
  }

  button.addEventListener("click", open);
  box.form.addEventListener("submit", open);
})();
