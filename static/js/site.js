// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var siteScript = document.currentScript;

  // A number box the browser refuses for its pattern ("2.5", "-3") says so in the site's words, naming the box (its
  // title: "Knocker's deadwood: enter a whole number."), not the browser's bare "match the requested format".
  document.addEventListener("invalid", function (event) {
    var box = event.target;
    if (box.validity && box.validity.patternMismatch && box.title) { box.setCustomValidity(box.title); }
  }, true);
  function forgetRefusal(box) {
    if (box.validity && box.validity.customError && box.title) { box.setCustomValidity(""); }
  }
  document.addEventListener("input", function (event) { forgetRefusal(event.target); }, true);
  // Asked afresh at each try (a click on a submit button, or Enter, which clicks it): a box the page has filled
  // in since (the cards' best play) is not held to its last refusal.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[type=submit], input[type=submit]");
    if (button && button.form) { Array.prototype.forEach.call(button.form.elements, forgetRefusal); }
  }, true);

  // Offline, htmx's requests (previews, the to-do count) are not sent: held here, as htmx starts before the app.
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (navigator.onLine === false) { event.preventDefault(); }
  });

  // The live stream's script (static/js/wall.js), after the load event and only on a page with live parts.
  function loadLiveScript() {
    var src = siteScript && siteScript.getAttribute("data-live-script");
    if (!src || !document.querySelector("[data-live]")) { return; }
    var tag = document.createElement("script");
    tag.src = src;
    document.head.appendChild(tag);
  }
  // The offline app (static/js/offline/main.js, an ES module; its settings on this tag), likewise after the load
  // event, only where it has a use: signed in, the waiting page, or a phone that still remembers someone signed in
  // (the app then notes nobody is, so a kept page drawn offline shows no one's navigation).
  function offlineAppWanted() {
    if (siteScript.getAttribute("data-user") || siteScript.hasAttribute("data-offline-page")) { return true; }
    try { return Boolean(localStorage.getItem("ginleague-user")); } catch (error) { return false; }
  }
  function loadOfflineApp() {
    var src = siteScript && siteScript.getAttribute("data-offline-app");
    if (!src || !offlineAppWanted()) { return false; }
    var tag = document.createElement("script");
    tag.type = "module";
    tag.src = src;
    document.head.appendChild(tag);
    return true;
  }
  // Elsewhere only the service worker: a phone first opened signed out still keeps its app shell for offline use.
  function registerWorker() {
    var sw = siteScript && siteScript.getAttribute("data-sw");
    if (!sw || !("serviceWorker" in navigator) || !window.isSecureContext) { return; }
    navigator.serviceWorker.register(sw, { scope: "/" }).catch(function () { return null; });
  }
  function afterLoad() {
    if (!loadOfflineApp()) { registerWorker(); }
    loadLiveScript();
  }
  if (document.readyState === "complete") { afterLoad(); } else { window.addEventListener("load", afterLoad, { once: true }); }
  // A list filtered by name while one types (the night page's check-in list, <input data-filter-list="its
  // id">); without JavaScript its form filters on the server (GET ?q=).
  document.addEventListener("input", function (event) {
    var box = event.target;
    var list = box && box.getAttribute && document.getElementById(box.getAttribute("data-filter-list") || "");
    if (!list) { return; }
    var wanted = box.value.trim().toLocaleLowerCase();
    Array.prototype.forEach.call(list.querySelectorAll("li[data-player]"), function (item) {
      item.hidden = wanted !== "" && item.getAttribute("data-player").toLocaleLowerCase().indexOf(wanted) < 0;
    });
  });
  // After the record form swapped the sheet, put the keyboard where the next tap goes:
  // the first refused field, or the first ending button for the next hand.
  document.addEventListener("htmx:afterSettle", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || elt.id !== "sheet") { return; }
    var target = elt.querySelector(".record .has-error input:not([type=hidden])") ||
      (elt.querySelector(".notice") && elt.querySelector(".record input[name=ending]"));
    if (target) { target.focus({ preventScroll: false }); }
  });

  // A scoresheet opened on a phone: the keyboard starts on the first field of the record form, not
  // a dozen links above it. Only once, as the page opens, and only if nothing has the focus yet
  // (a link to a part of the page, a screen reader already reading): later updates never move it.
  function focusRecordOnOpen() {
    var phone = window.matchMedia && window.matchMedia("(max-width: 40rem), (pointer: coarse)").matches;
    var active = document.activeElement;
    if (!phone || location.hash || (active && active !== document.body)) { return; }
    var first = document.querySelector("#sheet form.record:not([hidden]) input[name=ending]:checked") ||
      document.querySelector("#sheet form.record:not([hidden]) input[name=ending]");
    if (first) { first.focus({ preventScroll: true }); }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", focusRecordOnOpen);
  } else {
    focusRecordOnOpen();
  }

  // The record forms: the next hand's (#record), or in partnership gin one per board of the deal in play.
  function isRecordForm(form) {
    return Boolean(form && form.tagName === "FORM" && (form.id === "record" || form.classList.contains("board-record")));
  }
  // Whether a box holds other than what the page was served with (a list served with no option marked shows its first).
  function changedFromPage(box) {
    if (box.type === "radio" || box.type === "checkbox") { return box.checked !== box.defaultChecked; }
    if (box.tagName === "SELECT") {
      var served = Array.prototype.findIndex.call(box.options, function (option) { return option.defaultSelected; });
      return box.selectedIndex !== Math.max(served, 0);
    }
    return box.value !== box.defaultValue;
  }
  function boxesOf(root) { return root.querySelectorAll("input, select, textarea"); }

  // A record form being typed in is marked (data-typed): static/js/wall.js keeps such a form when it redraws the
  // sheet. Marked from here, not wall.js, which comes after the load event; and a form typed in before even this
  // script came (a slow phone) is found by its boxes.
  function markTyped(event) {
    var form = event.target && event.target.form;
    if (isRecordForm(form)) { form.setAttribute("data-typed", "1"); }
  }
  document.addEventListener("input", markTyped, true);
  document.addEventListener("change", markTyped, true);
  Array.prototype.forEach.call(document.forms, function (form) {
    if (isRecordForm(form) && Array.prototype.some.call(boxesOf(form), changedFromPage)) { form.setAttribute("data-typed", "1"); }
  });

  // A box changed before htmx listened fired its change unheard, and its preview never came. htmx says it listens
  // with htmx:load on the body, once, after its first pass over the page: then each part whose trigger starts with
  // "change" (the record form's preview and card entry, the new-game form's rules check) and holds a box so
  // changed tells that change again.
  document.addEventListener("htmx:load", function (event) {
    if (event.target !== document.body) { return; }
    Array.prototype.forEach.call(document.querySelectorAll("[hx-trigger^=change]"), function (part) {
      var box = Array.prototype.find.call(boxesOf(part), changedFromPage);
      if (box) { box.dispatchEvent(new Event("change", { bubbles: true })); }
    });
  });

  // A button pressed with a mouse right after typing in a box: the box, left, asks for its preview (its change
  // comes with the press), and an answer drawn before the release can move the button from under the pointer
  // (on the correction page it adds a line above it). The release then falls beside the button and the click is
  // lost. So an htmx answer for a form one of whose buttons is held down is drawn after the release and its click.
  var pressedForm = null;
  var heldSwaps = [];
  document.addEventListener("pointerdown", function (event) {
    var button = event.target && event.target.closest && event.target.closest("button, input[type=submit]");
    pressedForm = (button && button.form) || null;
  }, true);
  function drawHeldSwaps() {
    pressedForm = null;
    var swaps = heldSwaps;
    heldSwaps = [];
    if (swaps.length) { setTimeout(function () { swaps.forEach(function (draw) { draw(); }); }, 0); }
  }
  document.addEventListener("pointerup", drawHeldSwaps, true);
  document.addEventListener("pointercancel", drawHeldSwaps, true);
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    if (!pressedForm || !detail.shouldSwap || !detail.target || !pressedForm.contains(detail.target)) { return; }
    detail.shouldSwap = false;
    var source = detail.elt && detail.elt.closest && detail.elt.closest("[hx-swap]");
    var style = (source && source.getAttribute("hx-swap").split(" ")[0]) || "innerHTML";
    heldSwaps.push(function () {
      if (!document.contains(detail.target)) { return; }  // the click replaced it (a hand saved, a page left)
      htmx.swap(detail.target, detail.serverResponse, { swapStyle: style, swapDelay: 0, settleDelay: 20 });
    });
  });

  // The record form sends only what the player can see: a box the chosen ending hides (the knocker's
  // deadwood of a gin, any figure of a dead hand) is left out, whatever it still holds.
  function hiddenBox(input) {
    return input.type !== "hidden" && input.type !== "radio" && input.type !== "checkbox" && input.getClientRects().length === 0;
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail && event.detail.elt;
    if (!isRecordForm(form)) { return; }
    Array.prototype.forEach.call(form.querySelectorAll(".deadwood input[name]"), function (input) {
      if (!hiddenBox(input)) { return; }
      if (event.detail.formData && event.detail.formData["delete"]) { event.detail.formData["delete"](input.name); }
      if (event.detail.parameters) { delete event.detail.parameters[input.name]; }
    });
  });
  // Enter on a choice (a radio) moves on to the next box still empty, instead of sending a hand half told;
  // with every box filled it sends the form as usual.
  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (event.key !== "Enter" || !input || input.type !== "radio" || !input.form) { return; }
    if (!isRecordForm(input.form)) { return; }
    var form = input.form;
    var seen = {};
    var boxes = Array.prototype.filter.call(form.querySelectorAll("input[name]"), function (box) {
      if (box.type === "hidden" || box.getClientRects().length === 0 || box.closest(".card-grid")) { return false; }
      if (box.type === "radio") {  // one stop per choice not yet made: its first option
        if (seen[box.name]) { return false; }
        seen[box.name] = true;
        return !form.querySelector("input[name='" + box.name + "']:checked");
      }
      return box.type !== "checkbox" && box.value.trim() === "";
    });
    var after = boxes.filter(function (box) {
      return box.name !== input.name && (input.compareDocumentPosition(box) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    var next = after[0] || boxes.filter(function (box) { return box.name !== input.name; })[0];
    if (next) {
      event.preventDefault();
      next.focus();
    }
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
        if (label) { label.textContent = interpolate(ngettext("%s picked", "%s picked", count), [count]); }
      });
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target && event.target.closest && event.target.closest(".card-grid")) {
      syncCardGrids(event.target.closest(".record") || document);
    }
  });
  document.addEventListener("htmx:load", function () { syncCardGrids(document); rove(document); localTimes(document); });
  document.addEventListener("DOMContentLoaded", function () {
    syncCardGrids(document); rove(document); localTimes(document);
  });

  // A time the server wrote in its own zone (<time datetime="…+00:00" data-local>, with the zone's name
  // for a page read without this file) said in this phone's time zone and the page's language: the
  // browser knows its zone when the page is read, also from the phone's offline copy (issue 37).
  function localTimes(root) {
    var times = (root || document).querySelectorAll("time[data-local][datetime]");
    if (!times.length || !window.Intl || !Intl.DateTimeFormat) { return; }
    var lang = document.documentElement.lang || undefined;
    var format;
    try {
      format = new Intl.DateTimeFormat(lang, {
        day: "numeric", month: /^en/.test(lang || "") ? "short" : "long", year: "numeric",
        hour: "2-digit", minute: "2-digit", hourCycle: "h23",
      });
    } catch (error) { return; }
    times.forEach(function (time) {
      var when = new Date(time.getAttribute("datetime"));
      if (!isNaN(when.getTime())) { time.textContent = format.format(when); }
    });
  }

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
  // htmx gives the box being typed in its focus back after a swap, but not a selection that starts at
  // the first character (it tests `selectionStart` for truth): a figure selected whole to be typed over
  // would be typed in front of instead ("76" over "83" made "7683"). Kept here and put back below.
  var selectionBeforeSwap = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    var active = document.activeElement;
    selectionBeforeSwap = active && active.id && active.tagName === "INPUT" && typeof active.selectionStart === "number"
      ? { id: active.id, start: active.selectionStart, end: active.selectionEnd, whole: active.selectionEnd === active.value.length }
      : null;
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
    var selection = selectionBeforeSwap;
    selectionBeforeSwap = null;
    var focused = selection && document.getElementById(selection.id);
    if (!focused || focused !== document.activeElement || selection.start !== 0) { return; }
    try {
      focused.setSelectionRange(0, selection.whole ? focused.value.length : selection.end);
    } catch (error) { /* a field without a text selection */ }
  });

  // New game: choosing another rule set starts from that set's own Hollywood (ticked only for the
  // Hollywood preset), so a tick carried over from the last game's rules is never kept unseen.
  // In the capture phase: before htmx sends the form for the rules' summary.
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (!select || select.name !== "preset" || !select.form || !select.form.classList.contains("new-game")) { return; }
    var hollywood = select.form.querySelector("input[name=hollywood]");
    if (hollywood) { hollywood.checked = select.value === "hollywood"; }
  }, true);

  // New game: "Who deals first" offers the names as they are typed (four seats in partnership gin).
  var SEAT_WORDS = {
    one: function () { return gettext("The first player"); },
    two: function () { return gettext("The second player"); },
    three: function () { return gettext("The third player"); },
    four: function () { return gettext("The fourth player"); }
  };
  document.addEventListener("input", function (event) {
    var input = event.target;
    var seat = input && input.name ? (input.name.match(/^player_(one|two|three|four)$/) || [])[1] : null;
    if (!seat || !input.form) { return; }
    var radio = input.form.querySelector("input[name=first_dealer][value=" + seat + "]");
    var label = radio && radio.parentElement.querySelector("span");
    if (label) {
      label.textContent = input.value.trim().replace(/\s+/g, " ") || SEAT_WORDS[seat]();
    }
  });
})();

// Saving a hand on a flaky connection (issue 15): a save that got no answer (no network, a timeout, 502/503/504)
// is sent again by fetch (htmx's queue could lose it) with the values htmx sent, its key among them: the server
// stores it once. Once the browser reports no network, the offline app owns the save: one waiting here goes to it.
(function () {
  "use strict";
  if (!window.htmx || !window.fetch) { return; }
  var WAIT = 15000;  // no answer in 15 s: treat it as lost and send again
  var AGAIN = { 502: true, 503: true, 504: true };
  var pending = null;  // the save waiting for an answer: {form, config, url, body, headers, timer, controller}
  var pause = 1000;

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
  function isSave(config) {
    var elt = config && config.elt;
    var action = config && config.formData ? config.formData.get("action") : null;
    var recordForm = elt && elt.tagName === "FORM" && (elt.id === "record" || elt.classList.contains("board-record"));
    return Boolean(recordForm && (action === null || action === "save"));
  }
  function stop() {
    if (!pending) { return; }
    clearTimeout(pending.timer);
    if (pending.controller) { pending.controller.abort(); }
    pending = null;
  }
  function saved() {
    stop();
    pause = 1000;
    say(document.querySelector("#sheet .notice") ? gettext("Saved") : "", "saved");  // no notice: the form came back refused
  }
  function failed(status) {
    stop();
    say(interpolate(gettext("Could not save: the server answered %(status)s. Reload the page and check the sheet."),
      { status: status }, true), "failed");
  }
  function willRetry() {
    if (!pending) { return; }
    say(gettext("No connection: will retry"), "offline");
    clearTimeout(pending.timer);
    pending.timer = setTimeout(sendAgain, pause);
    pause = Math.min(pause * 2, 15000);
  }
  // The browser reports no network: the offline app (static/js/offline/) takes the save (a copy the server did get is recognised
  // when it sends it: same hand number, same facts).
  function handOver() {
    // Once per save: the "offline" event and htmx's sendError both arrive, and a second hand-over
    // would have the offline app queue the same hand twice (as hand N and hand N+1).
    if (!pending || pending.controller || pending.handedOver) { return; }
    pending.handedOver = true;
    clearTimeout(pending.timer);
    var button = pending.form.querySelector("button[name=action][value=save]");
    if (document.body.contains(pending.form) && pending.form.requestSubmit) { pending.form.requestSubmit(button); }
  }
  function sendAgain() {
    var save = pending;
    if (!save) { return; }
    clearTimeout(save.timer);
    if (!document.body.contains(save.form)) { stop(); return; }  // the sheet was redrawn meanwhile
    if (navigator.onLine === false) { handOver(); return; }
    say(gettext("Saving\u2026"), "saving");
    var controller = window.AbortController ? new AbortController() : null;
    var clock = controller ? setTimeout(function () { controller.abort(); }, WAIT) : null;
    save.controller = controller;
    fetch(save.url, {
      method: "POST", body: new URLSearchParams(save.body), headers: save.headers,
      credentials: "same-origin", cache: "no-store", signal: controller ? controller.signal : undefined
    }).then(function (response) {
      return response.text().then(function (html) { return { status: response.status, html: html }; });
    }).then(function (answer) {
      clearTimeout(clock);
      if (pending !== save) { return; }  // a newer save took over
      save.controller = null;
      if (answer.status >= 200 && answer.status < 300) {
        var sheet = document.getElementById("sheet");
        if (sheet) { htmx.swap(sheet, answer.html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 20 }); }
        saved();
      } else if (AGAIN[answer.status]) {
        willRetry();
      } else {
        failed(answer.status);
      }
    }, function () {
      clearTimeout(clock);
      if (pending !== save) { return; }
      save.controller = null;
      if (navigator.onLine === false) { handOver(); } else { willRetry(); }
    });
  }

  document.addEventListener("htmx:configRequest", function (event) {
    if (isSave(event.detail)) { event.detail.timeout = WAIT; }
  });
  // The "Saved" line is about the hand just saved: it goes once the next hand is being typed.
  function newHandTyped(event) {
    var form = event.target && event.target.form;
    var line = document.getElementById("save-status");
    if (form && form.id === "record" && line && !line.hidden && line.getAttribute("data-state") === "saved") { say("", ""); }
  }
  document.addEventListener("input", newHandTyped);
  document.addEventListener("change", newHandTyped);
  // The save as htmx sends it (after every listener had its say): what a repeat sends again.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var config = event.detail.requestConfig;
    if (!isSave(config) || navigator.onLine === false || event.defaultPrevented) { return; }
    stop();  // a save tapped again carries the same form key: it replaces one waiting here
    var body = [];
    config.formData.forEach(function (value, name) { body.push([name, value]); });
    var headers = {};
    Object.keys(config.headers || {}).forEach(function (name) { headers[name] = config.headers[name]; });
    pending = { form: config.elt, config: config, url: config.path, body: body, headers: headers, timer: null, controller: null };
    say(gettext("Saving\u2026"), "saving");
  });
  function ofPending(event) { return pending && event.detail && event.detail.requestConfig === pending.config; }
  ["htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      if (!ofPending(event)) { return; }
      if (navigator.onLine === false) { handOver(); } else { willRetry(); }
    });
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (!ofPending(event)) { return; }
    var status = event.detail.xhr.status;
    if (AGAIN[status]) { willRetry(); } else { failed(status); }
  });
  // htmx fires this on the form, or, once the answer replaced the form, on the nearest element still on the page.
  document.addEventListener("htmx:afterRequest", function (event) {
    var detail = event.detail || {};
    if (detail.offline) {  // the offline app kept the hand on the phone: nothing left to send from here
      if (pending) { stop(); say("", ""); }
      return;
    }
    if (ofPending(event) && detail.successful) { saved(); }
  });
  window.addEventListener("online", function () { if (pending && !pending.controller) { sendAgain(); } });
  window.addEventListener("offline", handOver);
}());
