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

  // Card entry: the answer to a tap (or to a changed figure) redraws the deadwood boxes. A figure
  // typed into a box while that answer was on its way is put back and sent again, not lost.
  var typedInFlight = {};
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (!form) { return; }
    form.querySelectorAll(".card-mode .deadwood input").forEach(function (input) {
      input.setAttribute("data-sent", input.value);
    });
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    typedInFlight = {};
    if (!target || target.id !== "worked") { return; }
    target.querySelectorAll(".deadwood input[data-sent]").forEach(function (input) {
      if (input.value !== input.getAttribute("data-sent")) { typedInFlight[input.id] = input.value; }
    });
  });
  document.addEventListener("htmx:afterSwap", function () {
    var typed = typedInFlight;
    typedInFlight = {};
    Object.keys(typed).forEach(function (id) {
      var input = document.getElementById(id);
      if (!input) { return; }
      input.value = typed[id];
      // Once htmx has finished with this answer, so the form's request queue takes the new one.
      window.setTimeout(function () { input.dispatchEvent(new Event("change", { bubbles: true })); }, 0);
    });
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

// Saving a hand on a flaky connection: a save that got no answer (no network, a timeout, 502/503/504)
// is sent again with the same values, so with the same form key: the server stores it once and
// answers the repeat with the first save's outcome. The line under the buttons says what is happening.
(function () {
  "use strict";
  if (!window.htmx) { return; }
  var pending = null, timer = null, pause = 1000;
  function recordForm(elt) { return elt && elt.closest ? elt.closest("form#record") : null; }
  function say(text, state) {
    var line = document.getElementById("save-status");
    if (!line) {
      line = document.createElement("p");
      line.id = "save-status";
      line.className = "save-status";
      line.setAttribute("role", "status");
    }
    var buttons = document.querySelector("#record .buttons");
    var sheet = document.getElementById("sheet");
    if (buttons) { buttons.parentNode.insertBefore(line, buttons.nextSibling); }
    else if (sheet && line.parentNode !== sheet) { sheet.insertBefore(line, sheet.firstChild); }
    line.textContent = text;
    line.setAttribute("data-state", state || "");
    line.hidden = !text;
  }
  function sendAgain() {
    clearTimeout(timer);
    if (!pending) { return; }
    if (navigator.onLine === false) { return; }  // the "online" event sends it
    var form = pending.form;
    if (!document.body.contains(form)) { pending = null; return; }
    // The form as it was sent: same boxes, same key (the server answers a repeat with the first save).
    form.requestSubmit(form.querySelector("button[name=action][value=save]"));
  }
  function willRetry() {
    say("No connection: will retry", "offline");
    clearTimeout(timer);
    timer = setTimeout(sendAgain, pause);
    pause = Math.min(pause * 2, 15000);
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var form = recordForm(event.detail.elt);
    var data = event.detail.formData;
    if (!form || !data || data.get("action") !== "save") { return; }
    pending = { form: form };
    event.detail.timeout = 15000;  // no answer in 15 s: treat it as lost and send again
    say("Saving\u2026", "saving");
  });
  ["htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      if (pending && recordForm(event.detail.elt)) { willRetry(); }
    });
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (!pending || !recordForm(event.detail.elt)) { return; }
    var status = event.detail.xhr.status;
    if (status === 502 || status === 503 || status === 504) { willRetry(); return; }
    pending = null;
    say("Could not save: the server answered " + status + ". Reload the page and check the sheet.", "failed");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!pending || !event.detail.successful || !recordForm(event.detail.elt)) { return; }
    pending = null;
    pause = 1000;
    setTimeout(function () {  // after the new sheet settled
      say(document.querySelector("#sheet .notice") ? "Saved" : "", "saved");
    }, 60);
  });
  window.addEventListener("online", sendAgain);
}());
