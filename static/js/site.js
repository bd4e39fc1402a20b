// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  // After the record form swapped the sheet, put the keyboard where the next tap goes:
  // the first refused field, or the first ending button for the next hand.
  document.addEventListener("htmx:afterSettle", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || elt.id !== "sheet") { return; }
    var target = elt.querySelector(".record .has-error input:not([type=hidden])") ||
      (elt.querySelector(".notice") && elt.querySelector(".record input[name=ending]"));
    if (target) { target.focus({ preventScroll: false }); }
  });
})();
