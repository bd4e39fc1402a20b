/* Sending what waits (sync.js): when the network is back, queued writes go to the API in order, each with
 * its Idempotency-Key and the hand number it expects; every answer's game goes to the kept copy (kept.js).
 * A 409 with the same facts is this phone's own hand that reached the server another way; with other facts,
 * another phone really stored that hand number while this one was offline: both versions stay on the
 * sheet until the players choose one (the other goes to the audit trail). A change waits for the account
 * that made it; signing out sends what waits first, then the phone forgets the account. */
import { CONF, api, factWords, factsOf, isLocal, newKey, offline, refusalText, sameFacts, shared, sheetGameId, tr } from "./common.js";
import { forgetThisPhone, getGame, keepGame, tx } from "./kept.js";
import { allOps, dropOp, opsOf, putOp } from "./queue.js";
import { badge, drawSheet, drawWaiting, outcomeWords, say } from "./sheet.js";
import { refreshAny, sendBoard } from "./boards.js";

// The history's comment when the players keep the version this phone scored offline: it is the
// "after" of the correction, the version the other phone stored first the "before".
// Kept as a reason, in this phone's language, like any history line.
function keptThisPhones(number) {
  return tr(gettext("Two phones recorded hand %(number)s; the players kept the version scored offline (after), " +
    "not the one stored first (before)."), { number: number });
}
// ---- sync ---------------------------------------------------------------------------------------
var syncing = null;
export function sync() {
  if (syncing) { return syncing; }
  if (navigator.onLine === false) { return Promise.resolve(false); }
  var created = false;
  syncing = allOps().then(function (ops) {
    var blocked = {};
    var changed = {};
    return ops.reduce(function (chain, op) {
      return chain.then(function () {
        if (op.state !== "waiting" || blocked[op.game]) { blocked[op.game] = true; return null; }
        if (op.op !== "create" && isLocal(op.game)) { blocked[op.game] = true; return null; }
        if (shared.sessionEnded || (op.user && op.user !== CONF.user)) {  // sent as the account that made it, or not at all
          blocked[op.game] = true;
          changed[op.game] = true;
          return null;
        }
        return send(op).then(function (outcome) {
          changed[op.game] = true;
          if (op.op === "create" && outcome === "sent") { created = true; }
          if (outcome !== "sent") { blocked[op.game] = true; }
        });
      });
    }, Promise.resolve()).then(function () { return changed; });
  }).then(function (changed) {
    syncing = null;
    badge();
    if (created) { return sync(); }  // the new games' hands now have real game ids
    var gameId = sheetGameId();
    if (isLocal(gameId)) {
      return getGame(gameId).then(function (stored) {
        if (stored && stored.movedTo) { location.assign("/games/" + stored.movedTo + "/"); }
        return true;
      });
    }
    if (gameId && changed[gameId]) { return afterSync(gameId); }
    drawWaiting();
    return true;
  }, function () {
    // No answer (the network is not really back yet, or the server is busy): try again soon.
    syncing = null;
    badge();
    retryLater();
    return false;
  });
  return syncing;
}

var retryDelay = 500;
var retryTimer = null;
export function retryLater() {
  if (retryTimer) { return; }
  retryTimer = setTimeout(function () {
    retryTimer = null;
    if (navigator.onLine === false) { return; }  // the "online" event starts the next try
    shared.netDown = false;
    sync().then(function (done) { if (done) { retryDelay = 500; } });
  }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 30000);
}

export function handUrl(op, handId) { return "/api/games/" + op.game + "/hands/" + (handId ? handId + "/" : ""); }

// A game started offline: its players (found or added by name), then the game; its queued hands follow it.
export function sendCreate(op) {
  var names = [op.facts.player_one, op.facts.player_two];
  var ids = [];
  return names.reduce(function (chain, name, i) {
    return chain.then(function (answer) {
      if (answer && answer.status >= 300) { return answer; }
      return api("POST", "/api/players/", { name: name }, op.key + "-player-" + (i + 1)).then(function (reply) {
        if (reply.status < 300) { ids.push(reply.data.id); }
        return reply;
      });
    });
  }, Promise.resolve(null)).then(function (answer) {
    if (answer && answer.status >= 300) { return answer; }
    return api("POST", "/api/games/", {
      player_one: ids[0], player_two: ids[1], first_dealer: ids[op.facts.first_dealer === "two" ? 1 : 0], rules: op.facts.rules
    }, op.key);
  }).then(function (answer) {
    if (answer.status !== 201) { return answer; }
    var game = answer.data;
    var local = { "-1": game.player_one.id, "-2": game.player_two.id };
    return keepGame(game).then(function () {
      return tx("games", "readwrite", function (store) { return store.put({ id: op.game, movedTo: game.id, seen: Date.now() }); });
    }).then(allOps).then(function (ops) {
      return ops.filter(function (other) { return other.game === op.game && other.seq !== op.seq; }).reduce(function (chain, other) {
        other.game = game.id;
        if (other.facts && local[String(other.facts.by)]) { other.facts.by = local[String(other.facts.by)]; }
        return chain.then(function () { return putOp(other); });
      }, Promise.resolve());
    }).then(function () { return { status: 201, data: null }; });
  });
}

export function send(op) {
  var request;
  if (op.op === "create") {
    request = sendCreate(op);
  } else if (op.op === "board") {  // a partnership deal's board (boards.js)
    request = sendBoard(op);
  } else if (op.op === "add") {
    request = api("POST", handUrl(op), Object.assign({ number: op.number }, op.facts), op.key);
  } else if (op.op === "edit") {
    request = api("PUT", handUrl(op, op.hand_id), Object.assign({ reason: op.reason || gettext("Corrected on a phone without a network") }, op.facts), op.key);
  } else {
    request = api("DELETE", handUrl(op, op.hand_id), undefined, op.key);
  }
  return request.then(function (answer) {
    if (answer.status >= 200 && answer.status < 300) {
      var chain = answer.data && answer.data.game ? keepGame(answer.data.game) : Promise.resolve();
      return chain.then(function () { return dropOp(op.seq); }).then(function () { return "sent"; });
    }
    if (answer.status === 409 && op.op === "add") { return conflict(op); }
    if (answer.status === 401 || answer.signIn) {
      // Nobody is signed in any more (the session ended): it waits for its account, it is not refused.
      shared.sessionEnded = true;
      if (op.user) { return "sign in"; }
      op.user = CONF.user;
      return putOp(op).then(function () { return "sign in"; });
    }
    if (answer.status >= 500 || answer.status === 429) { throw new Error("server busy"); }
    op.state = "refused";
    op.problem = answer.data && (answer.data.message || answer.data.detail) ? refusalText(answer.data) : tr(gettext("The server refused it (%(status)s)."), { status: answer.status });
    return putOp(op).then(function () { return "refused"; });
  });
}

// Another phone recorded this hand first: keep both versions until the players choose.
export function conflict(op) {
  return api("GET", "/api/games/" + op.game + "/").then(function (answer) {
    if (answer.status !== 200) { throw new Error("could not read the game"); }
    var game = answer.data;
    return keepGame(game).then(function () {
      var theirs = game.hands.filter(function (h) { return h.number === op.number; })[0];
      if (theirs && sameFacts(theirs, op.facts)) {  // the same hand reached the server another way
        return dropOp(op.seq).then(function () { return "sent"; });
      }
      if (!theirs) {  // the sheet moved on differently (hands removed): send as the next hand
        op.number = game.hand_count + 1;
        op.key = newKey();
        return putOp(op).then(function () { return send(op); });
      }
      op.state = "conflict";
      op.theirs = { id: theirs.id, facts: factsOf(theirs), words: outcomeWords(theirs, game) + " (" + factWords(factsOf(theirs), game) + ")" };
      return putOp(op).then(function () { return "conflict"; });
    });
  });
}

export function resolveConflict(seq, keep) {
  return allOps().then(function (ops) {
    var op = ops.filter(function (o) { return o.seq === seq; })[0];
    if (!op || !op.theirs) { return null; }
    if (offline()) { say(gettext("Choosing a version needs the network: the server keeps the other one in the game's history."), true); return null; }
    var request = keep === "ours"
      ? api("PUT", handUrl(op, op.theirs.id), Object.assign({ reason: keptThisPhones(op.number) }, op.facts), op.key + "-ours")
      : api("POST", handUrl(op, op.theirs.id) + "set-aside/", op.facts, op.key + "-theirs");
    return request.then(function (answer) {
      if (answer.status >= 300) {
        say((answer.data && answer.data.message) || gettext("The server refused it."), true);
        return null;
      }
      var chain = answer.data && answer.data.game ? keepGame(answer.data.game) : Promise.resolve();
      return chain.then(function () { return dropOp(op.seq); }).then(function () { return sync(); });
    });
  }).then(function () {
    var gameId = sheetGameId();
    if (gameId) { return afterSync(gameId); }
    drawWaiting();
  });
}

// The server's answer replaces the local figures: once nothing is left for this game, show its page.
export function afterSync(gameId) {
  return opsOf(gameId).then(function (ops) {
    if (!ops.length) {
      if (document.querySelector("#sheet .offline-note.status, #sheet tr.unsent, #sheet .conflict")) { location.reload(); }
      return true;
    }
    return refreshAny(gameId).then(function (state) { if (state) { drawSheet(state); } return true; });
  });
}

// Send what waits first; what still cannot be sent is discarded only if the person says so.
export function signOut(form) {
  function leave() {
    return forgetThisPhone().catch(function () { return null; }).then(function () {
      form.setAttribute("data-forgotten", "1");
      form.submit();
    });
  }
  if (navigator.onLine === false) {
    window.alert(gettext("Signing out needs the network: try again when this phone is online."));
    return Promise.resolve();
  }
  return sync().catch(function () { return false; }).then(allOps).then(function (ops) {
    if (!ops.length) { return leave(); }
    var count = ops.length;
    var question = tr(ngettext(
      "%(count)s hand scored on this phone is waiting to be sent (the server did not take it yet).\n\n" +
      "OK: discard it and sign out.\n" +
      "Cancel: stay signed in; it is sent when the server answers (see Waiting to be sent).",
      "%(count)s hands scored on this phone are waiting to be sent (the server did not take them yet).\n\n" +
      "OK: discard them and sign out.\n" +
      "Cancel: stay signed in; they are sent when the server answers (see Waiting to be sent).", count), { count: count });
    if (window.confirm(question)) { return leave(); }
    badge();
    return null;
  }, function () { return leave(); });
}

