/* The glue to the shared scorer (static/js/engine.js, GinEngine): loaded only when needed, and never as
 * part of a page's first load (asked for once the page has loaded and the browser is idle, or at once by an
 * offline save); `score` scores the phone's hands of a game as the server would (docs/offline.md). */
import { CONF } from "./common.js";

// ---- the offline scorer, loaded only when needed ------------------------------------------------
var enginePromise = null;
export function engine() {
  if (window.GinEngine) { return Promise.resolve(window.GinEngine); }
  if (!enginePromise) {
    enginePromise = new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = CONF.engine;
      tag.onload = function () { resolve(window.GinEngine); };
      tag.onerror = function () { enginePromise = null; reject(new Error(gettext("The offline scorer could not be loaded."))); };
      document.head.appendChild(tag);
    });
  }
  return enginePromise;
}

// The scorer is no part of the first paint: fetched ahead of need only once the page has loaded and
// the browser is idle (a save made offline before then asks for it at once).
export function whenIdle() {
  return new Promise(function (resolve) {
    function idle() {
      if (window.requestIdleCallback) {
        window.requestIdleCallback(function () { resolve(); }, { timeout: 2000 });
      } else {
        setTimeout(resolve, 1);
      }
    }
    if (document.readyState === "complete") { idle(); } else { window.addEventListener("load", idle, { once: true }); }
  });
}
export function engineWhenIdle() { return whenIdle().then(engine); }

// When time was called on these hands: a hand removed from before the call moves it down one, as on the
// server (services._remove), so the call counts the stored hands from before it that are still here.
export function timeCalledAfter(game, hands) {
  var called = game.time_called_after;
  if (called === null || called === undefined) { return null; }
  var before = game.hands.filter(function (h) { return h.number <= called; }).map(function (h) { return h.id; });
  return hands.filter(function (h) { return h.id !== null && before.indexOf(h.id) >= 0; }).length;
}
export function score(game, hands) {
  return engine().then(function (GinEngine) {
    return GinEngine.scoreSession(game.rules, [game.player_one, game.player_two], game.first_dealer,
      hands.map(function (h) { return h.facts; }), timeCalledAfter(game, hands));
  });
}
