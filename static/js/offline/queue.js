/* The queue of changes made without a network (IndexedDB `queue`: {seq, game, op: "create"|"add"|"edit"|"remove",
 * number, hand_id, facts, reason, key, state: "waiting"|"conflict"|"refused", theirs, problem, made, user}).
 * localHands: the hands as this phone sees them (the kept copy with the queue on top, corrections and
 * removals naming their hand by id); queue(): a change is kept only if the offline scorer accepts the whole
 * sheet with it; startOffline: a game started without a network. */
import { CONF, el, factsOf, newKey, refusalText, tr } from "./common.js";
import { getGame, keepGame, tx } from "./kept.js";
import { engine, score } from "./scorer.js";

export function allOps() {
  return tx("queue", "readonly", function (s) { return s.getAll(); }).then(function (ops) {
    return (ops || []).sort(function (a, b) { return a.seq - b.seq; });
  });
}
export function opsOf(gameId) { return allOps().then(function (ops) { return ops.filter(function (op) { return op.game === gameId; }); }); }
export function putOp(op) { return tx("queue", "readwrite", function (s) { return s.put(op); }); }
export function addOp(op) { return tx("queue", "readwrite", function (s) { return s.add(op); }); }
export function dropOp(seq) { return tx("queue", "readwrite", function (s) { return s["delete"](seq); }); }

// A correction or removal names the stored hand by its id (its number moves if an earlier one goes).
export function sameHand(hand, op) { return op.hand_id ? hand.id === op.hand_id : hand.number === op.number; }
// The hands as this phone sees them: [{number, id, facts, op}] (op: the queued write not yet sent).
export function localHands(game, ops) {
  var hands = game.hands.map(function (h) { return { number: h.number, id: h.id, facts: factsOf(h), op: null }; });
  ops.forEach(function (op) {
    if (op.state === "refused") { return; }
    var stored = hands.filter(function (h) { return h.number === op.number; })[0];
    if (op.state === "conflict" && stored) {  // the server's version stands until the players choose
      stored.conflict = op;
      return;
    }
    if (op.op === "add") {
      hands.push({ number: hands.length + 1, id: null, facts: op.facts, op: op });
    } else if (op.op === "edit") {
      hands.forEach(function (h) { if (sameHand(h, op)) { h.facts = op.facts; h.op = op; } });
    } else if (op.op === "remove") {
      hands = hands.filter(function (h) { return !sameHand(h, op); });
      hands.forEach(function (h, i) { h.number = i + 1; });
    }
  });
  return hands;
}
// ---- queueing a change made without a network ---------------------------------------------------
export function refusal(game) {
  if (!game) { return gettext("This game was not opened on this phone while online, so it cannot be scored offline."); }
  if (game.league_status === "confirmed") {
    return gettext("This league result is confirmed: it can only be corrected online (a correction needs a reason, kept in the game's history).");
  }
  if (!game.can_edit) { return gettext("You may not change this game."); }
  return null;
}

// Try the change on the local sheet; queue it only if the offline scorer accepts the whole sheet.
// Answers {queued: true} or {refused: what to tell the player} (main.js record() draws either).
export function queue(gameId, change) {
  return Promise.all([getGame(gameId), opsOf(gameId)]).then(function (both) {
    var stored = both[0];
    var ops = both[1];
    var refused = refusal(stored && stored.game);
    if (refused) { return { refused: refused }; }
    var game = stored.game;
    var hands = localHands(game, ops);
    var writes = [];
    var trial = ops.slice();
    if (change.op === "add") {
      var add = { game: gameId, op: "add", number: hands.length + 1, facts: change.facts, key: newKey(), state: "waiting", made: Date.now(), user: CONF.user };
      trial.push(add);
      writes.push(function () { return addOp(add); });
    } else {
      var target = hands.filter(function (h) { return h.number === change.number; })[0];
      if (!target) { return { refused: tr(gettext("There is no hand %(number)s on this sheet."), { number: change.number }) }; }
      var pending = target.op && target.op.state === "waiting" ? target.op : null;
      if (change.op === "edit") {
        if (pending) {  // not yet sent: change what will be sent
          var updated = Object.assign({}, pending, { facts: change.facts, key: newKey() });
          if (pending.op === "edit") { updated.reason = change.reason || pending.reason || ""; }
          trial = trial.map(function (op) { return op.seq === pending.seq ? updated : op; });
          writes.push(function () { return putOp(updated); });
        } else {
          var edit = { game: gameId, op: "edit", number: change.number, hand_id: target.id, facts: change.facts, reason: change.reason || "", key: newKey(), state: "waiting", made: Date.now(), user: CONF.user };
          trial.push(edit);
          writes.push(function () { return addOp(edit); });
        }
      } else if (change.op === "remove") {
        if (target.number !== hands.length) { return { refused: gettext("Only the last hand can be undone here.") }; }
        if (pending && pending.op === "add") {
          trial = trial.filter(function (op) { return op.seq !== pending.seq; });
          writes.push(function () { return dropOp(pending.seq); });
        } else {
          if (pending) {
            trial = trial.filter(function (op) { return op.seq !== pending.seq; });
            writes.push(function () { return dropOp(pending.seq); });
          }
          var remove = { game: gameId, op: "remove", number: change.number, hand_id: target.id, facts: target.facts, key: newKey(), state: "waiting", made: Date.now(), user: CONF.user };
          trial.push(remove);
          writes.push(function () { return addOp(remove); });
        }
      }
    }
    return score(game, localHands(game, trial)).then(function () {
      return writes.reduce(function (chain, write) { return chain.then(write); }, Promise.resolve()).then(function () {
        return { queued: true };
      });
    }, function (error) {
      return { refused: refusalText(error) };
    });
  });
}

export function formFacts(form) {
  function checked(name) { var input = form.querySelector("input[name=" + name + "]:checked"); return input ? input.value : ""; }
  function number(name) {
    var input = form.querySelector("[name=" + name + "]");
    var text = input ? input.value.trim() : "";
    return text === "" ? null : Number(text);
  }
  var facts = {
    ending: checked("ending") || (form.querySelector("[name=ending]") || {}).value || "",
    by: null, knocker_deadwood: null, defender_deadwood: null, upcard: null
  };
  var by = checked("by") || (form.querySelector("select[name=by]") || {}).value || "";
  if (by && facts.ending !== "dead") { facts.by = Number(by); }
  if (facts.ending !== "dead") {
    facts.knocker_deadwood = number("knocker_deadwood");
    if (facts.ending === "knock") { facts.defender_deadwood = number("defender_deadwood"); }
    if (facts.ending !== "knock") { facts.knocker_deadwood = null; facts.defender_deadwood = number("defender_deadwood"); }
  }
  var rank = checked("upcard_rank") || (form.querySelector("[name=upcard_rank]") || {}).value;
  var suit = checked("upcard_suit") || (form.querySelector("[name=upcard_suit]") || {}).value;
  if (rank && suit) { facts.upcard = rank + suit; } else if (form.querySelector("[name=upcard]")) { facts.upcard = form.querySelector("[name=upcard]").value.trim() || null; }
  return facts;
}

// ---- a game started without a network ----------------------------------------------------------
export function startOffline(form) {
  function value(name) { var input = form.querySelector("[name=" + name + "]"); return input ? input.value.trim().replace(/\s+/g, " ") : ""; }
  var one = value("player_one");
  var two = value("player_two");
  var dealer = (form.querySelector("input[name=first_dealer]:checked") || {}).value || "one";
  var spec = { preset: value("preset") || "standard" };
  Array.prototype.forEach.call(form.querySelectorAll("[name^=rule_]"), function (input) {
    if (input.value.trim() !== "") { spec[input.name.slice(5)] = input.value.trim(); }
  });
  var hollywood = form.querySelector("input[name=hollywood]");
  if (hollywood && hollywood.checked && spec.preset !== "hollywood") { spec.hollywood = true; }
  function refuse(text) {
    var note = form.querySelector(".offline-note") || el("p", { "class": "offline-note refused", role: "alert" });
    note.textContent = text;
    form.insertBefore(note, form.firstChild);
  }
  if (spec.preset === "partnership") {  // four players: the server starts it (boards.js scores its boards offline)
    refuse(gettext("A partnership game is started with the network on; once started, its boards can be scored offline."));
    return;
  }
  if (!one || !two) { refuse(gettext("Enter both players' names.")); return; }
  if (one.toLowerCase() === two.toLowerCase()) { refuse(gettext("Second player: a game needs two different players.")); return; }
  engine().then(function (GinEngine) {
    var rules;
    try { rules = GinEngine.readRules(spec); } catch (error) { refuse(error.message); return null; }
    var id = "local-" + newKey().slice(8);
    var players = [{ id: -1, name: one }, { id: -2, name: two }];
    var game = {
      id: id, local: true, player_one: players[0], player_two: players[1], first_dealer: players[dealer === "two" ? 1 : 0],
      rules: rules, hands: [], can_edit: true, league_status: ""
    };
    return keepGame(game).then(function () {
      return addOp({ game: id, op: "create", number: 0, facts: { player_one: one, player_two: two, first_dealer: dealer, rules: rules },
        key: newKey(), state: "waiting", made: Date.now(), user: CONF.user });
    }).then(function () { location.assign(CONF.waiting + "#" + id); });
  }, function (error) { refuse(error.message); });
}

