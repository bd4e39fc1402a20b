/* Partnership gin without a network (issue 41): a board recorded offline is checked by the offline scorer
 * (GinEngine.scorePartnership) together with every board this phone knows, queued (queue.js's store, op
 * "board": {number: the deal, board, facts}) and the sheet's figures drawn again at once from the scorer's
 * answer: each side's total, boxes and what it still needs, the board "not yet sent", the deal's result once
 * both boards are in, and the next deal's board forms. sync.js sends a queued board to the board form's own
 * address (scoring.views.board_submit, with its key: stored once) when the network is back. */
import { CONF, csrfToken, el, factsOf, newKey, refusalText, tr } from "./common.js";
import { getGame, pageCopy } from "./kept.js";
import { engine } from "./scorer.js";
import { addOp, formFacts, opsOf, refusal } from "./queue.js";
import { refresh, rowWords } from "./sheet.js";

export function isPartnership(game) { return Boolean(game && game.player_three); }

function idOf(player) { return player && typeof player === "object" ? player.id : player; }
function seated(game) { return [game.player_one, game.player_two, game.player_three, game.player_four]; }
function nameOf(game, id) {
  var found = seated(game).filter(function (player) { return player.id === id; })[0];
  return found ? found.name : "";
}
function sideName(game, side) {
  var players = seated(game);
  return tr(gettext("%(one)s & %(two)s"), { one: players[side].name, two: players[side + 2].name });
}
// Who plays whom on each board of deal ``number`` (engine/partnership.py board_pairs): [side one's, side two's].
function boardPairs(game, number) {
  var p = seated(game).map(idOf);
  if (game.rules.partner_opponents === "alternate" && number % 2 === 0) { return [[p[0], p[3]], [p[2], p[1]]]; }
  return [[p[0], p[1]], [p[2], p[3]]];
}

// The deals as this phone sees them: the kept copy's boards, the queued ones on top ([board 1, board 2] a deal).
export function localDeals(game, ops) {
  var deals = [];
  function put(number, board, facts, op) {
    while (deals.length < number) { deals.push([null, null]); }
    deals[number - 1][board - 1] = { facts: facts, op: op };
  }
  game.hands.forEach(function (hand) { put(hand.number, hand.board, factsOf(hand), null); });
  ops.forEach(function (op) { if (op.op === "board" && op.state !== "refused") { put(op.number, op.board, op.facts, op); } });
  return deals;
}
export function scoreDeals(game, deals) {
  return engine().then(function (GinEngine) {
    return GinEngine.scorePartnership(game.rules, seated(game).map(idOf), idOf(game.first_dealer),
      deals.map(function (deal) { return deal.map(function (board) { return board ? board.facts : null; }); }));
  });
}

// A board form sent without a network: kept only if the scorer accepts every board with it.
// Answers {queued: true} or {refused: what to tell the player}.
export function queueBoard(gameId, form) {
  return Promise.all([getGame(gameId), opsOf(gameId)]).then(function (both) {
    var stored = both[0];
    var ops = both[1];
    var refused = refusal(stored && stored.game);
    if (refused) { return { refused: refused }; }
    var game = stored.game;
    var number = Number(form.getAttribute("data-deal"));
    var board = Number(form.getAttribute("data-board"));
    var known = localDeals(game, ops)[number - 1];
    if (known && known[board - 1]) {
      return { refused: tr(gettext("Board %(board)s of deal %(number)s is already recorded."), { board: board, number: number }) };
    }
    var op = { game: gameId, op: "board", number: number, board: board, facts: formFacts(form), key: newKey(),
      state: "waiting", made: Date.now(), user: CONF.user };
    return scoreDeals(game, localDeals(game, ops.concat([op]))).then(function () {
      return addOp(op).then(function () { return { queued: true }; });
    }, function (error) {
      return { refused: refusalText(error) };
    });
  });
}

// ---- drawing ------------------------------------------------------------------------------------
// The sheet drawn again from what this phone holds: a partnership game's here, a two-handed one's by sheet.js.
export function refreshAny(gameId, options) {
  return getGame(gameId).then(function (stored) {
    return stored && isPartnership(stored.game) ? refreshBoards(gameId) : refresh(gameId, options);
  });
}

var formPatterns = {};  // a board's form as the server drew it: the pattern of the forms drawn here

// The sheet of a partnership game from this phone's boards; null when nothing waits (the server's sheet is true).
export function refreshBoards(gameId) {
  return Promise.all([getGame(gameId), opsOf(gameId)]).then(function (both) {
    var stored = both[0];
    var ops = both[1].filter(function (op) { return op.op === "board"; });
    if (!stored || !stored.game || !ops.length) { return null; }
    var deals = localDeals(stored.game, ops);
    return scoreDeals(stored.game, deals).then(function (result) {
      drawBoards(stored.game, deals, result);
      return { gameId: gameId, game: stored.game, ops: ops, result: result };
    });
  });
}

function sideLines(game, result) {
  var score = result.score;
  Array.prototype.forEach.call(document.querySelectorAll("#sheet .sides .board"), function (section, side) {
    var points = score.hand_points[side];
    var pts = section.querySelector(".pts");
    var sub = section.querySelector(".sub");
    if (pts) { pts.textContent = String(score.over ? score.final[side] : points); }
    if (sub) {
      sub.textContent = (score.over ? tr(gettext("%(points)s in deals"), { points: points })
        : tr(gettext("needs %(points)s"), { points: Math.max(0, score.target - points) })) +
        " · " + tr(ngettext("%(count)s box", "%(count)s boxes", score.boxes[side]), { count: score.boxes[side] });
    }
  });
}

function dealWords(game, deal) {
  if (deal.winner === null) { return gettext("Tied deal: nobody scores."); }
  return tr(gettext("%(side)s win the deal by %(points)s."), { side: sideName(game, deal.winner), points: deal.points });
}

function boardLine(game, deal, index) {
  var scored = deal.boards[index];
  var words = rowWords(scored, scored, game);
  var line = el("p", { "class": "board-line" }, [el("span", { "class": "what" }, words.what)]);
  if (scored.result !== "dead") {
    line.appendChild(document.createTextNode(" · "));
    line.appendChild(el("strong", { "class": "board-pts", text: nameOf(game, scored.winner) + " " + scored.points }));
  }
  line.appendChild(document.createTextNode(" "));
  line.appendChild(el("span", { "class": "meta", text: words.meta }));
  return line;
}

// A board recorded on this phone and not yet sent, in place of its form.
function recordedBoard(game, deal, index, pairWords) {
  return el("section", { "class": "board-open is-recorded unsent", id: "open-board-" + (index + 1) }, [
    el("h2", { text: tr(gettext("Deal %(number)s · board %(board)s"), { number: deal.number, board: index + 1 }) }),
    el("p", { "class": "pairing", text: pairWords }),
    boardLine(game, deal, index),
    el("p", { "class": "unsent-note", text: gettext("Kept on this phone: not yet sent.") })
  ]);
}

// A board form for deal ``number`` made from the server's own (its fields, labels and classes).
function boardForm(game, pattern, number, board, dealerSide) {
  var form = pattern.cloneNode(true);
  var pair = boardPairs(game, number)[board - 1];
  var from = "id_b" + pattern.getAttribute("data-board") + "_";
  var to = "id_b" + board + "_";
  form.id = "record-board-" + board;
  form.setAttribute("data-board", String(board));
  form.setAttribute("data-deal", String(number));
  form.removeAttribute("data-typed");
  form.reset();
  Array.prototype.forEach.call(form.querySelectorAll("[id], [for], [aria-describedby]"), function (node) {
    ["id", "for", "aria-describedby"].forEach(function (name) {
      var value = node.getAttribute(name);
      if (value) { node.setAttribute(name, value.split(from).join(to)); }
    });
  });
  var preview = form.querySelector("[id^=preview-board-]");
  if (preview) { preview.id = "preview-board-" + board; preview.textContent = ""; }
  var fields = form.querySelector("[hx-target^='#preview-board-']");
  if (fields) { fields.setAttribute("hx-target", "#preview-board-" + board); }
  Array.prototype.forEach.call(form.querySelectorAll(".error, .hand-taken"), function (node) { node.remove(); });
  Array.prototype.forEach.call(form.querySelectorAll(".has-error"), function (node) { node.classList.remove("has-error"); });
  form.querySelector("input[name=deal]").value = String(number);
  form.querySelector("input[name=board]").value = String(board);
  Array.prototype.forEach.call(form.querySelectorAll("input[name=by]"), function (input, i) {
    input.value = String(pair[i]);
    input.checked = false;
    var label = input.parentNode.querySelector("span");
    if (label) { label.textContent = nameOf(game, pair[i]); }
  });
  var heading = form.querySelector("h2");
  if (heading) { heading.textContent = tr(gettext("Deal %(number)s · board %(board)s"), { number: number, board: board }); }
  var pairing = form.querySelector(".pairing");
  if (pairing) { pairing.textContent = pairWords(game, pair, pair[dealerSide]); }
  var save = form.querySelector(".buttons button.primary");
  if (save) { save.textContent = tr(gettext("Save board %(board)s"), { board: board }); }
  return form;
}
function pairWords(game, pair, dealer) {
  return tr(gettext("%(one)s v %(two)s · %(dealer)s deals"),
    { one: nameOf(game, pair[0]), two: nameOf(game, pair[1]), dealer: nameOf(game, dealer) });
}

export function drawBoards(game, deals, result) {
  var sheet = document.getElementById("sheet");
  if (!sheet) { return; }
  Array.prototype.forEach.call(sheet.querySelectorAll("form.board-record"), function (form) {
    formPatterns[form.getAttribute("data-board")] = formPatterns[form.getAttribute("data-board")] || form.cloneNode(true);
  });
  sideLines(game, result);
  var last = result.deals[result.deals.length - 1];
  var open = last && !last.settled ? last : null;
  var number = open ? open.number : result.deals.length + 1;
  var dealer = sheet.querySelector("p.dealer");
  if (dealer) {
    dealer.textContent = "";
    if (result.over) {
      dealer.className = "dealer is-over";
      dealer.appendChild(document.createTextNode(gettext("Game over: ")));
      dealer.appendChild(el("strong", { "class": "verdict", text: tr(gettext("%(side)s win by %(margin)s"),
        { side: sideName(game, result.winner), margin: result.margin }) }));
    } else {
      var dealing = open ? open.dealer : result.next_dealer;
      dealer.className = "dealer";
      dealer.textContent = tr(gettext("Deal %(number)s: %(side)s deal"), { number: number, side: sideName(game, dealing) });
    }
  }
  var settled = result.deals.filter(function (deal) { return deal.settled; });
  var lastSettled = settled[settled.length - 1];
  var resultLine = sheet.querySelector("p.last-deal");
  if (lastSettled) {
    if (!resultLine) {
      resultLine = el("p", { "class": "deal-result last-deal", role: "status" });
      if (dealer) { dealer.parentNode.insertBefore(resultLine, dealer.nextSibling); }
    }
    resultLine.textContent = tr(gettext("Deal %(number)s:"), { number: lastSettled.number }) + " " + dealWords(game, lastSettled);
  }
  // The deal in play: each board recorded here is drawn in place of its form; a deal just settled here
  // makes way for the next deal's forms (made from the server's own), unless the game is over.
  var places = Array.prototype.filter.call(sheet.children, function (node) {
    return node.matches && node.matches("form.board-record, section.board-open");
  });
  var anchor = places.length ? places[places.length - 1].nextSibling : (sheet.querySelector(".game-over") || sheet.querySelector("#deals"));
  var drawn = [];
  var lastDeal = result.deals[result.deals.length - 1];
  deals.forEach(function (deal, index) {
    var scored = result.deals[index];
    deal.forEach(function (board, b) {
      if (!board || !board.op) { return; }
      var pair = boardPairs(game, scored.number)[b];
      var dealerId = scored.boards[b].dealer;
      var section = recordedBoard(game, scored, b, pairWords(game, pair, dealerId));
      section.setAttribute("data-deal", String(scored.number));
      if (scored === lastDeal && !scored.settled) { drawn.push(section); }
    });
  });
  if (!result.over) {
    var openDeal = lastDeal && !lastDeal.settled ? lastDeal : null;
    [1, 2].forEach(function (board) {
      if (openDeal && openDeal.boards[board - 1]) { return; }  // recorded: drawn above, or the server's section stays
      var existing = sheet.querySelector("form.board-record[data-board='" + board + "'][data-deal='" + number + "']");
      if (existing) { drawn.push(existing); return; }
      var pattern = formPatterns[String(board)] || formPatterns[String(3 - board)];
      if (pattern) {
        var dealerSide = openDeal ? openDeal.dealer : result.next_dealer;
        drawn.push(boardForm(game, pattern, number, board, dealerSide));
      }
    });
    if (openDeal) {  // a board of the deal in play recorded before (the server's section) stays where it was
      [1, 2].forEach(function (board) {
        if (!openDeal.boards[board - 1]) { return; }
        var kept = places.filter(function (node) { return node.id === "open-board-" + board && !node.classList.contains("unsent"); })[0];
        if (kept && deals[openDeal.number - 1][board - 1] && !deals[openDeal.number - 1][board - 1].op) {
          drawn.splice(board - 1, 0, kept);
        }
      });
    }
  }
  drawn.sort(function (a, b) { return boardOf(a) - boardOf(b); });
  places.forEach(function (node) { if (drawn.indexOf(node) < 0) { node.remove(); } });
  drawn.forEach(function (node) { sheet.insertBefore(node, anchor && anchor.parentNode === sheet ? anchor : null); });
  if (window.htmx) { drawn.forEach(function (node) { window.htmx.process(node); }); }
  drawDeals(game, deals, result);
}
function boardOf(node) { return Number(node.getAttribute("data-board") || String(node.id).replace(/\D+/g, "")); }

// The deals list: a deal settled on this phone goes on top, marked not yet sent.
function drawDeals(game, deals, result) {
  var list = document.querySelector("#sheet ol.deals");
  if (!list) { return; }
  Array.prototype.forEach.call(list.querySelectorAll("li.unsent, li.no-deals"), function (node) { node.remove(); });
  result.deals.forEach(function (deal, index) {
    var local = deals[index].some(function (board) { return board && board.op; });
    if (!deal.settled || !local) { return; }
    var item = el("li", { "class": "deal unsent", "data-deal": String(deal.number) }, [
      el("h3", { text: tr(gettext("Deal %(number)s"), { number: deal.number }) }),
      el("ul", { "class": "deal-boards" }, deal.boards.map(function (scored, b) {
        return el("li", { "class": "deal-board" }, [el("span", { "class": "board-no", text: tr(gettext("Board %(board)s"), { board: b + 1 }) }), " "]
          .concat(Array.prototype.slice.call(boardLine(game, deal, b).childNodes)));
      })),
      el("p", { "class": "deal-result", text: dealWords(game, deal) }),
      el("p", { "class": "unsent-note", text: gettext("Kept on this phone: not yet sent.") })
    ]);
    list.insertBefore(item, list.firstChild);
  });
}

// ---- sending a queued board (sync.js) -------------------------------------------------------------
// Posted as the board's form posts it (with its key: a repeat is stored once); the answer is the sheet.
export function sendBoard(op) {
  var body = new URLSearchParams();
  body.set("csrfmiddlewaretoken", csrfToken());
  body.set("idempotency_key", op.key);
  body.set("action", "save");
  body.set("deal", String(op.number));
  body.set("board", String(op.board));
  var facts = op.facts;
  body.set("ending", facts.ending || "");
  if (facts.by !== null && facts.by !== undefined) { body.set("by", String(facts.by)); }
  if (facts.knocker_deadwood !== null && facts.knocker_deadwood !== undefined) { body.set("knocker_deadwood", String(facts.knocker_deadwood)); }
  if (facts.defender_deadwood !== null && facts.defender_deadwood !== undefined) { body.set("defender_deadwood", String(facts.defender_deadwood)); }
  if (facts.upcard) { body.set("upcard_rank", facts.upcard.slice(0, -1)); body.set("upcard_suit", facts.upcard.slice(-1)); }
  return fetch("/games/" + op.game + "/boards/", {
    method: "POST", body: body, credentials: "same-origin", cache: "no-store", redirect: "manual",
    headers: { "HX-Request": "true", "X-CSRFToken": csrfToken() }
  }).then(function (response) {
    if (response.type === "opaqueredirect") { return { status: 401, signIn: true, data: null }; }
    return response.text().then(function (html) {
      var page = new DOMParser().parseFromString(html, "text/html");
      var sheet = page.getElementById("sheet");
      var errors = Array.prototype.map.call(page.querySelectorAll("form.board-record .error"), function (node) { return node.textContent.trim(); });
      return { status: response.status, data: { game: sheet ? pageCopy(sheet) : null, message: errors.join(" ") || null } };
    });
  });
}
