/* Scoring without a network (issue 14): the offline app's entry point, one ES module that static/js/site.js
 * loads after the page's load event, on the pages that name it (signed in, and the waiting page: base.html's
 * data-offline-app); every page works without it.
 *
 * - Registers the service worker (/sw.js, scoring/pwa.py) that keeps the app shell and the pages seen.
 * - On a scoresheet (/games/<id>/) keeps the game's facts (kept.js, the one owner of the phone's copy);
 *   without a network a new hand, a correction or an undo is queued (queue.js) and the sheet is redrawn at
 *   once (sheet.js), scored by the offline scorer (scorer.js, static/js/engine.js), each such hand marked
 *   "not yet sent"; sync.js sends it when the network is back.
 * - A partnership game's board (issue 41) is queued and drawn by boards.js, and sent by sync.js the same way.
 * - The waiting page (/waiting/) lists what is queued; signing out sends it first (sync.js signOut).
 * Here: the page's events (saves, undo, corrections, sign-out, the network coming and going) and start().
 */
import { CONF, isLocal, offline, shared, sheetGameId } from "./common.js";
import { getGame, keepSheet } from "./kept.js";
import { engineWhenIdle } from "./scorer.js";
import { dropOp, formFacts, queue, refusal, startOffline } from "./queue.js";
import { badge, drawKeptNav, drawLocalSheet, drawNotKept, drawSheet, drawWaiting, openEdit, refresh, say } from "./sheet.js";
import { resolveConflict, signOut, sync } from "./sync.js";
import { queueBoard, refreshAny, refreshBoards } from "./boards.js";

// Submits on the sheet while offline: handled here, before htmx sees them.
document.addEventListener("submit", function (event) {
  var form = event.target;
  var gameId = sheetGameId();
  if (form && form.classList && form.classList.contains("new-game") && offline()) {
    event.preventDefault();
    event.stopImmediatePropagation();
    startOffline(form);
    return;
  }
  if (!gameId || !form || !form.closest || !form.closest("#sheet") || !(offline() || isLocal(gameId))) { return; }
  var action = event.submitter && event.submitter.name === "action" ? event.submitter.value : "save";
  if (form.classList.contains("board-record")) {  // a board of a partnership deal (boards.js)
    event.preventDefault();
    event.stopImmediatePropagation();
    queueBoard(gameId, form).then(function (outcome) {
      if (outcome.refused !== undefined) { say(outcome.refused, true); return; }
      say("");
      form.removeAttribute("data-typed");
      form.dispatchEvent(new CustomEvent("htmx:afterRequest", { bubbles: true, detail: { elt: form, successful: true, offline: true } }));
      return refreshBoards(gameId).then(function () { badge(); });
    }).catch(function () { return null; });
  } else if (form.id === "record") {
    event.preventDefault();
    event.stopImmediatePropagation();
    if (action !== "save") { return; }  // previews, card grids: need the server
    record(gameId, { op: "add", facts: formFacts(form) }).then(function (state) {
      if (!state) { return; }
      form.reset();
      form.removeAttribute("data-typed");  // kept on the phone: no hand is being typed any more (wall.js)
      // The preview said what the hand just kept would score: it is no longer the form's.
      var preview = form.querySelector("#preview");
      if (preview) { preview.innerHTML = ""; preview.classList.remove("refused"); }
      // The hand is safe on the phone: a save site.js was retrying (issue 15) is over.
      form.dispatchEvent(new CustomEvent("htmx:afterRequest", { bubbles: true, detail: { elt: form, successful: true, offline: true } }));
    });
  } else if (form.classList.contains("undo")) {
    event.preventDefault();
    event.stopImmediatePropagation();
    record(gameId, { op: "remove", number: Number(form.querySelector("input[name=number]").value) });
  } else if (form.classList.contains("offline-edit")) {
    event.preventDefault();
    event.stopImmediatePropagation();
    var reasonBox = form.querySelector("[name=reason]");
    record(gameId, { op: "edit", number: Number(form.getAttribute("data-number")), facts: formFacts(form), reason: reasonBox ? reasonBox.value.trim() : "" })
      .then(function (state) { if (state) { form.remove(); } });
  }
}, true);

document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!form || !form.classList || !form.classList.contains("sign-out") || form.getAttribute("data-forgotten")) { return; }
  event.preventDefault();
  event.stopImmediatePropagation();
  signOut(form);
}, true);

// A save that gets no answer while the browser still reports a network is retried by site.js
// (issue 15: the same form, the same key); once the browser reports no network, saves come here.

// Corrections offline: the edit page needs the server, so edit in place.
document.addEventListener("click", function (event) {
  var target = event.target;
  if (target && target.closest) {
    var keep = target.closest("[data-keep]");
    if (keep) { event.preventDefault(); resolveConflict(Number(keep.getAttribute("data-seq")), keep.getAttribute("data-keep")); return; }
    var drop = target.closest("[data-drop]");
    if (drop) { event.preventDefault(); dropOp(Number(drop.getAttribute("data-drop"))).then(function () { return refresh(sheetGameId()); }).then(function (s) { if (s) { drawSheet(s); } badge(); }); return; }
  }
  var link = target && target.closest ? target.closest("td.fix a") : null;
  var gameId = sheetGameId();
  if (!link || !gameId || !(offline() || isLocal(gameId))) { return; }
  event.preventDefault();
  var number = Number(link.getAttribute("data-offline-edit") || (link.getAttribute("href").match(/hands\/(\d+)\/edit/) || [])[1]);
  getGame(gameId).then(function (stored) {
    var refused = refusal(stored && stored.game);
    if (refused) { say(refused, true); return; }
    openEdit(stored.game, number);
  });
});

// The words of the link followed, for a page the phone never kept (sheet.js drawNotKept names it by them).
document.addEventListener("click", function (event) {
  var link = event.target && event.target.closest ? event.target.closest("a[href]") : null;
  if (!link || link.origin !== location.origin) { return; }
  var text = (link.getAttribute("aria-label") || link.textContent || "").trim().replace(/\s+/g, " ");
  try { sessionStorage.setItem("ginleague-followed", JSON.stringify({ href: link.pathname + link.search, text: text })); } catch (error) { /* no storage */ }
}, true);

// Every sheet drawn on this page after it opened (a save's answer swapped in by htmx or site.js, the live
// stream's redraw): its facts go to the kept copy at once, so the signal dropping a moment later goes on
// from the sheet as it is.
function watchSheet() {
  if (!window.MutationObserver) { return; }
  new MutationObserver(function (changes) {
    var touched = changes.some(function (change) {
      if (change.type === "attributes") { return change.target.id === "sheet"; }
      return Array.prototype.some.call(change.addedNodes, function (node) {
        return node.nodeType === 1 && (node.id === "sheet" || Boolean(node.querySelector && node.querySelector("#sheet")));
      });
    });
    var gameId = sheetGameId();
    if (!touched || gameId === null || isLocal(gameId)) { return; }
    keepSheet().then(function (copy) { return copy ? refreshAny(copy.id, { quiet: true }) : null; }).catch(function () { return null; });
  }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-game"] });
}

// A change made on this phone: kept (queue.js) and the sheet redrawn, or the player told why not.
function record(gameId, change) {
  return queue(gameId, change).then(function (outcome) {
    if (outcome.refused !== undefined) { say(outcome.refused, true); return null; }
    say("");
    return refresh(gameId).then(function (state) { if (state) { drawSheet(state); } badge(); return state; });
  }).catch(function () { return null; });
}

// ---- start ------------------------------------------------------------------------------------------
// The waiting page is kept once per tab for each signed-in state (the shell's copy may predate
// sign-in), not at every page: each keep is one more download of it.
function waitingKeptAs() {
  var signedIn = document.querySelector(".nav-todo") ? "signed-in" : "signed-out";
  try {
    if (sessionStorage.getItem("ginleague-waiting-kept") === signedIn) { return null; }
    sessionStorage.setItem("ginleague-waiting-kept", signedIn);
  } catch (error) { /* no session storage: keep it each time */ }
  return signedIn;
}

function start() {
  var ready = [];
  drawKeptNav();
  watchSheet();
  if ("serviceWorker" in navigator && window.isSecureContext) {
    // A page the worker served is kept by the worker already (network first): only a page loaded
    // before the worker took control asks for it, else every page would be downloaded twice.
    var servedByWorker = Boolean(navigator.serviceWorker.controller);
    ready.push(navigator.serviceWorker.register(CONF.sw, { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      if (registration.active && navigator.onLine !== false) {
        if (!servedByWorker) {
          registration.active.postMessage({ type: "keep", url: location.pathname + location.search });
        }
        if ((sheetGameId() || document.querySelector("form.new-game")) && waitingKeptAs()) {  // where an offline game leads
          registration.active.postMessage({ type: "keep", url: CONF.waiting });
        }
      }
    }).catch(function () { return null; }));
  }
  if (document.getElementById("not-kept")) { ready.push(drawNotKept().catch(function () { return null; })); }
  if (document.getElementById("waiting-list") && /^#local-/.test(location.hash)) {
    ready.push(drawLocalSheet(location.hash.slice(1)).catch(function () { return null; }));
  }
  if (document.querySelector("form.new-game")) { ready.push(engineWhenIdle().catch(function () { return null; })); }
  var gameId = sheetGameId();
  if (gameId && !isLocal(gameId)) {
    ready.push(keepSheet().then(function () { return refreshAny(gameId); }).then(function () {
      return engineWhenIdle();  // loaded (and cached) while the network is here
    }).catch(function () { return null; }));
  }
  ready.push(badge());
  ready.push(drawWaiting());
  Promise.all(ready).then(function () {
    document.documentElement.setAttribute("data-offline-ready", "1");
    if (!offline()) { sync(); }
  });
}

// On the waiting page, a game started offline is a link to "#local-…" on the same page: following
// it (or going back from it) changes only the address, so draw what the address now names.
window.addEventListener("hashchange", function () {
  if (location.pathname !== CONF.waiting) { return; }
  if (/^#local-/.test(location.hash)) { drawLocalSheet(location.hash.slice(1)).then(function () { window.scrollTo(0, 0); }); }
  else if (!document.getElementById("waiting-list")) { location.reload(); }  // back to the list
});
window.addEventListener("online", function () { shared.netDown = false; badge(); setTimeout(sync, 50); });
window.addEventListener("offline", function () { badge(); });
window.GinOffline = { sync: sync, queue: record, badge: badge };
if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
