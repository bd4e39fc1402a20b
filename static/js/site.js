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
  document.addEventListener("htmx:load", function () { syncCardGrids(document); rove(document); });
  document.addEventListener("DOMContentLoaded", function () { syncCardGrids(document); rove(document); });

  // Each player's 52 cards are one Tab stop (a roving tabindex): the arrow keys move between
  // them (left/right along a suit, up/down across suits, Home/End), Space picks as usual.
  function rove(root) {
    (root || document).querySelectorAll(".card-grid").forEach(function (grid) {
      var boxes = Array.prototype.slice.call(grid.querySelectorAll("input[type=checkbox]"));
      var usable = boxes.filter(function (box) { return !box.disabled; });
      var current = usable.filter(function (box) { return box.getAttribute("tabindex") === "0"; })[0] ||
        usable.filter(function (box) { return box.checked; })[0] || usable[0];
      boxes.forEach(function (box) { box.setAttribute("tabindex", box === current ? "0" : "-1"); });
    });
  }
  var STEPS = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 13, ArrowUp: -13 };
  document.addEventListener("keydown", function (event) {
    var box = event.target;
    var grid = box && box.closest && box.closest(".card-grid");
    if (!grid || box.type !== "checkbox" || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var boxes = Array.prototype.slice.call(grid.querySelectorAll("input[type=checkbox]"));
    var index = boxes.indexOf(box);
    var rowStart = index - (index % 13);
    var candidates = [];
    if (STEPS[event.key]) {
      for (var i = index + STEPS[event.key]; i >= 0 && i < boxes.length; i += STEPS[event.key]) {
        if (Math.abs(STEPS[event.key]) === 1 && (i < rowStart || i >= rowStart + 13)) { break; }
        candidates.push(boxes[i]);
      }
    } else if (event.key === "Home") {
      candidates = boxes.slice(rowStart, index);
    } else if (event.key === "End") {
      candidates = boxes.slice(index + 1, rowStart + 13).reverse();
    } else {
      return;
    }
    event.preventDefault();
    var next = candidates.filter(function (other) { return !other.disabled; })[0];
    if (next) {
      box.setAttribute("tabindex", "-1");
      next.setAttribute("tabindex", "0");
      next.focus();
    }
  });
  document.addEventListener("focusin", function (event) {
    var box = event.target;
    var grid = box && box.closest && box.closest(".card-grid");
    if (!grid || box.type !== "checkbox") { return; }
    grid.querySelectorAll("input[type=checkbox]").forEach(function (other) {
      other.setAttribute("tabindex", other === box ? "0" : "-1");
    });
  });
  document.addEventListener("change", function (event) {
    if (event.target && event.target.closest && event.target.closest(".card-grid")) { rove(document); }
  });

  // New game: "Who deals first" offers the names as they are typed.
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input || !input.form || (input.name !== "player_one" && input.name !== "player_two")) { return; }
    var second = input.name === "player_two";
    var radio = input.form.querySelector("input[name=first_dealer][value=" + (second ? "two" : "one") + "]");
    var label = radio && radio.parentElement.querySelector("span");
    if (label) {
      label.textContent = input.value.trim().replace(/\s+/g, " ") || (second ? "The second player" : "The first player");
    }
  });
})();
