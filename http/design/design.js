// The design page's one script (served by the design service itself, the
// only script its policy allows): while an export is queued or rendering,
// fetch the exports section again every second and a half and put it in
// place, until none is left pending. Without script, the page's reload
// link does the same.
"use strict";
(function () {
  function poll() {
    var section = document.getElementById("exports");
    if (!section || section.getAttribute("data-pending") !== "true") {
      return;
    }
    fetch(section.getAttribute("data-src"), { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (res) {
        if (!res.ok) {
          throw new Error("exports: " + res.status);
        }
        return res.text();
      })
      .then(function (text) {
        var next = new DOMParser().parseFromString(text, "text/html").getElementById("exports");
        if (next) {
          section.replaceWith(document.importNode(next, true));
        }
        setTimeout(poll, 1500);
      })
      .catch(function () {
        setTimeout(poll, 5000);
      });
  }
  document.addEventListener("DOMContentLoaded", function () {
    setTimeout(poll, 1000);
  });
})();
