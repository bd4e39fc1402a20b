// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  // After the record form swapped the sheet, put the keyboard where the next tap goes:
  // the first refused field, or the first ending button for the next hand.
  document.addEventListener("htmx:afterSettle", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || elt.id !== "sheet") { return; }
    var target = elt.querySelector(".record .has-error input:not([type=hidden])") ||
      (elt.querySelector(".notice") && elt.querySelector(".record input[name=ending]"));
    if (target) { target.focus({ preventScroll: false }); }
  });

  // Card entry: a card can be in only one hand. Picking it in one player's grid
  // disables it in the other's, and each grid's legend counts its picks.
  function syncCardGrids(root) {
    var grids = (root || document).querySelectorAll(".card-entry");
    grids.forEach(function (entry) {
      var boxes = entry.querySelectorAll(".card-grid input[type=checkbox]");
      var picked = {};
      boxes.forEach(function (box) { if (box.checked) { picked[box.value] = box.name; } });
      boxes.forEach(function (box) {
        var owner = picked[box.value];
        box.disabled = Boolean(owner) && owner !== box.name;
      });
      entry.querySelectorAll(".card-grid").forEach(function (grid) {
        var count = grid.querySelectorAll("input[type=checkbox]:checked").length;
        var label = grid.querySelector("[data-count]");
        if (label) { label.textContent = count + " picked"; }
      });
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target && event.target.closest && event.target.closest(".card-grid")) {
      syncCardGrids(event.target.closest(".record") || document);
    }
  });
  document.addEventListener("htmx:load", function () { syncCardGrids(document); });
  document.addEventListener("DOMContentLoaded", function () { syncCardGrids(document); });
})();
