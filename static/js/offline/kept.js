/* The games this phone keeps, and their versions: the ONE owner of the phone's copy of a game (issue 37).
 *
 * IndexedDB "ginleague-offline": `games` {id, game: the API's game detail (or the sheet's data-game in the
 * same shape), seen}, and `queue` (static/js/offline/queue.js). Only keepGame writes a game: every path that
 * shows this phone a newer sheet hands the game to it (a page load and every sheet drawn afterwards: a save's
 * answer, the live stream's redraw, a correction, a removal, an undo; each answer of a sync). A copy is
 * replaced only by one as new or newer (`updated_at`, the server's), never by an older one: a page kept for
 * offline use and opened again offline is drawn from the newer copy instead (sheet.js refresh).
 */
import { CONF } from "./common.js";

export var PAGES_CACHE = "ginleague-pages";  // the service worker's kept pages (static/js/sw.js)
// ---- IndexedDB ---------------------------------------------------------------------------------
var dbPromise = null;
export function db() {
  if (!dbPromise) {
    dbPromise = new Promise(function (resolve, reject) {
      var open = indexedDB.open("ginleague-offline", 1);
      open.onupgradeneeded = function () {
        var base = open.result;
        base.createObjectStore("games", { keyPath: "id" });
        var queue = base.createObjectStore("queue", { keyPath: "seq", autoIncrement: true });
        queue.createIndex("game", "game");
      };
      open.onsuccess = function () { resolve(open.result); };
      open.onerror = function () { reject(open.error); };
    });
  }
  return dbPromise;
}
export function tx(store, mode, work) {
  return db().then(function (base) {
    return new Promise(function (resolve, reject) {
      var t = base.transaction(store, mode);
      var result;
      var req = work(t.objectStore(store));
      if (req) { req.onsuccess = function () { result = req.result; }; }
      t.oncomplete = function () { resolve(result); };
      t.onerror = function () { reject(t.error); };
      t.onabort = function () { reject(t.error); };
    });
  });
}
export function getGame(id) { return tx("games", "readonly", function (s) { return s.get(id); }); }

// ---- the one owner of the phone's copy of a game ----------------------------------------------------
// Every path that shows this phone a newer sheet (a page load, a save's answer, a correction, a removal,
// an undo, the other phone's hand through the live stream, a sync answer) hands the game to keepGame,
// and only keepGame writes the copy. Its version is the server's `updated_at`: a copy is replaced by
// one as new or newer, never by an older one (a page this phone kept for offline use, shown again).
export function versionOf(game) {
  var text = game && game.updated_at;
  if (!text) { return game && game.local ? Infinity : 0; }  // a game started offline: only the phone has it
  var match = String(text).match(/^(.*?T\d\d:\d\d(?::\d\d)?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/);
  if (!match) { return 0; }
  var ms = Date.parse(match[1] + (match[3] || "Z"));
  return ms * 1000 + Number(((match[2] || "") + "000000").slice(0, 6));
}
export function keepGame(game) {
  return tx("games", "readwrite", function (store) {
    var read = store.get(game.id);
    read.onsuccess = function () {
      var kept = read.result;
      if (kept && kept.game && versionOf(kept.game) > versionOf(game)) { return; }  // the phone knows better
      store.put({ id: game.id, game: game, seen: Date.now() });
    };
    return null;
  });
}
// The copy the sheet on the page carries (scoring.scoresheet.offline_copy_json), in the API's shape.
export function pageCopy(sheet) {
  var text = sheet && sheet.getAttribute("data-game");
  if (!text) { return null; }
  var copy;
  try { copy = JSON.parse(text); } catch (error) { return null; }
  copy.hands = copy.hands.map(function (row, i) {
    var hand = { id: row[0], number: i + 1, ending: row[1], by: row[2], knocker_deadwood: row[3], defender_deadwood: row[4], upcard: row[5] };
    if (row.length > 7) { hand.number = row[6]; hand.board = row[7]; }  // a partnership game's board: its deal and board
    return hand;
  });
  copy.hand_count = copy.hands.length;
  return copy;
}
// The sheet on the page carries the game's facts (data-game, scoring.scoresheet.offline_copy_json): kept
// unless the phone knows a newer copy. Called as the page opens and whenever the sheet is drawn again
// (main.js watches for that); answers the copy the page showed, or null when it showed nothing new.
var keptFromPage = null;  // the data-game text last kept: a redraw showing the same sheet costs nothing
export function keepSheet() {
  var sheet = document.getElementById("sheet");
  var text = sheet && sheet.getAttribute("data-game");
  if (!text || text === keptFromPage) { return Promise.resolve(null); }
  var copy = pageCopy(sheet);
  if (!copy) { return Promise.resolve(null); }
  keptFromPage = text;
  return keepGame(copy).then(function () { return copy; });
}

// ---- signing out: the phone forgets the account ----------------------------------------------------
// What this phone kept for the account: the pages the worker keeps (and the shell's copy of the waiting
// page, fetched signed in), the games' facts and the queue. The next person opening them offline sees none.
export function forgetThisPhone() {
  var work = [
    tx("queue", "readwrite", function (store) { return store.clear(); }),
    tx("games", "readwrite", function (store) { return store.clear(); })
  ];
  if (window.caches) {
    work.push(caches.keys().then(function (cacheNames) {
      return Promise.all(cacheNames.map(function (name) {
        if (name === PAGES_CACHE) { return caches["delete"](name); }
        if (name.indexOf("ginleague-") !== 0) { return null; }
        return caches.open(name).then(function (cache) { return cache["delete"](CONF.waiting); });
      }));
    }));
  }
  try {
    sessionStorage.removeItem("ginleague-waiting-kept");
    Object.keys(localStorage).forEach(function (key) { if (key.indexOf("ginleague") === 0) { localStorage.removeItem(key); } });
  } catch (error) { /* storage switched off: nothing kept there */ }
  return Promise.all(work);
}

