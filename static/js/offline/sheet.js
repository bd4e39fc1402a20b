/* Drawing the offline sheet (a game's scoresheet, or a game started offline on the waiting page) from the
 * phone's hands scored by the offline scorer, in the server's words (#hand-words, #rule-words); the
 * offline correction form and its preview; the badge, the "not yet sent" line, the waiting page and the
 * "not kept for offline use" page. */
import { CONF, ENDING_WORDS, KEPT_COPY, PAGE_USER, RESULT_WORDS, csrfToken, el, factWords, isLocal, keptNav, names, offline, refName, refusalText, sheetGameId, signInNeeded, signInWords, tr } from "./common.js";
import { getGame, pageCopy, tx, versionOf } from "./kept.js";
import { engine, score, whenIdle } from "./scorer.js";
import { allOps, formFacts, localHands, opsOf } from "./queue.js";

// A row of the hands table in the sheet's own words: the server hands them to the page
// (scoring/scoresheet.py HAND_ROW_WORDS, in #hand-words), so a row drawn here reads as the server's does.
var rowWordsCache = null;
export function rowVocabulary() {
  if (rowWordsCache) { return rowWordsCache; }
  var node = document.getElementById("hand-words");
  try { rowWordsCache = JSON.parse(node.getAttribute("data-words")); } catch (error) { rowWordsCache = null; }
  return rowWordsCache;
}
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, function (whole, name) { return values[name] === undefined ? whole : String(values[name]); });
}
// A template to nodes: its <strong> parts become strong elements, every value is text (never HTML).
export function fillNodes(template, values) {
  return template.split(/(<strong>.*?<\/strong>)/).filter(Boolean).map(function (part) {
    var strong = part.match(/^<strong>(.*)<\/strong>$/);
    return strong ? el("strong", { text: fill(strong[1], values) }) : fill(part, values);
  });
}
export function rowWords(facts, scored, game) {
  var words = rowVocabulary();
  if (!words) { return { what: [outcomeWords(scored, game)], meta: factWords(facts, game) }; }  // a page kept before the words
  var who = { by: names(game)[facts.by], winner: refName(scored.winner, game), dealer: refName(scored.dealer, game) };
  var what;
  if (facts.ending === "dead") { what = [words.dead]; }
  else if (scored.result === "undercut") { what = fillNodes(words.undercut, who); }
  else { what = [fill(words.went_out, { by: who.by, ending: words.endings[facts.ending] })]; }
  var meta = [];
  if (facts.ending === "knock") { meta.push(fill(words.knock_deadwood, { knocker: facts.knocker_deadwood, defender: facts.defender_deadwood })); }
  else if (facts.ending !== "dead") { meta.push(fill(words.gin_deadwood, { defender: facts.defender_deadwood })); }
  if (facts.upcard) { meta.push(fill(words.upcard, { upcard: facts.upcard.slice(0, -1) + (words.suits[facts.upcard.slice(-1)] || "") })); }
  meta.push(fill(words.dealt, { dealer: who.dealer }));
  return { what: what, meta: meta.join(words.joiner) };
}
export function outcomeWords(hand, game) {
  if (hand.result === "dead") { return gettext("Dead hand"); }
  return tr(gettext("%(winner)s %(result)s %(points)s"),
    { winner: refName(hand.winner, game), result: RESULT_WORDS[hand.result], points: hand.points });
}

// ---- drawing the sheet from a scored session ---------------------------------------------------
var current = null;  // {gameId, game, ops, hands, session}

export function drawSheet(state) {
  var sheet = document.getElementById("sheet");
  if (!sheet || !state.session) { return; }  // a partnership game's sheet is drawn by boards.js (refresh)
  var game = state.game;
  var session = state.session;
  var hands = state.hands;
  var players = [game.player_one, game.player_two];
  var hollywood = session.scores.length > 1;

  // Dealer line / game over.
  var dealer = sheet.querySelector("p.dealer");
  if (dealer) {
    dealer.textContent = "";
    if (session.over) {
      dealer.className = "dealer is-over";
      var verdict = el("strong", { "class": "verdict", text: session.winner
        ? tr(gettext("%(name)s wins by %(margin)s"), { name: refName(session.winner, game), margin: session.margin })
        : gettext("level") });
      dealer.appendChild(document.createTextNode(gettext("Game over: ")));
      dealer.appendChild(verdict);
    } else {
      dealer.className = "dealer";
      dealer.appendChild(el("span", { "class": "dealer-name", text: refName(session.next_dealer, game) }));
      dealer.appendChild(document.createTextNode(gettext(" deals next")));
    }
  }

  // Time called: the line under the dealer's, and the "Time" button's help, follow the hand being typed
  // (scoring.views._time_note and the sheet's call-time form).
  var calledAfter = session.time_called_after;
  var timeNote = sheet.querySelector("p.time-called");
  var noteText = calledAfter === null || calledAfter === undefined ? "" :
    session.over ? (calledAfter ? tr(gettext("Time was called after hand %(number)s."), { number: calledAfter }) : gettext("Time was called during hand 1.")) :
    hands.length === calledAfter ? tr(gettext("Time called: hand %(number)s is the last, unless the players are level after it."), { number: calledAfter + 1 }) :
    gettext("Time called, and the players are level: the next hand that puts one of them ahead is the last.");
  if (noteText && !timeNote && dealer) {
    timeNote = el("p", { "class": "time-called", role: "status" });
    dealer.parentNode.insertBefore(timeNote, dealer.nextSibling);
  }
  if (timeNote) { timeNote.textContent = noteText; timeNote.hidden = !noteText; }
  var callHelp = sheet.querySelector("#call-time-help");
  if (callHelp) {
    callHelp.textContent = tr(gettext("Call time: hand %(number)s is the last, unless the players are level after it."), { number: hands.length + 1 });
  }
  var callForm = sheet.querySelector("form.call-time");
  if (callForm && session.over) { callForm.hidden = true; }

  // The boards.
  var boards = sheet.querySelector(".boards");
  if (boards) {
    boards.textContent = "";
    session.scores.forEach(function (board) {
      var gameLabel = tr(gettext("Game %(number)s"), { number: board.number });
      var section = el("section", { "class": "board" + (board.over ? " closed" : ""), "aria-label": hollywood ? gameLabel : gettext("Score") });
      if (hollywood) {
        // As the server's sheet: "Game 1" and, once over, its "closed" badge (one word, never broken).
        section.appendChild(el("h2", {}, [gameLabel].concat(board.over ? [" ", el("span", { "class": "closed-mark",
          text: pgettext("one of Hollywood's three games, finished", "closed") })] : [])));
      }
      [["player_one", players[0]], ["player_two", players[1]]].forEach(function (pair) {
        var key = pair[0];
        var points = board[key + "_hand_points"];
        var boxes = board[key + "_boxes"];
        var main = board.over ? board[key + "_final"] : points;
        var sub = (board.over ? tr(gettext("%(points)s in hands"), { points: points })
          : tr(gettext("needs %(points)s"), { points: Math.max(0, board.target - points) })) +
          " · " + tr(ngettext("%(count)s box", "%(count)s boxes", boxes), { count: boxes });
        section.appendChild(el("div", { "class": "line" }, [
          el("span", { "class": "who", text: pair[1].name }),
          el("span", { "class": "pts", text: String(main) }),
          el("span", { "class": "sub", text: sub })
        ]));
      });
      if (board.over && hollywood) { section.appendChild(el("p", { "class": "won", text: tr(gettext("%(name)s won by %(margin)s"), { name: refName(board.winner, game), margin: board.margin }) })); }
      boards.appendChild(section);
    });
  }

  // The record form: the next hand's number, or hidden once the game is over.
  var form = sheet.querySelector("form#record");
  if (form) {
    var heading = form.querySelector("h2");
    if (heading) { heading.textContent = tr(gettext("Hand %(number)s"), { number: hands.length + 1 }); }
    var expected = form.querySelector("input[name=expected_number]");
    if (expected) { expected.value = String(hands.length + 1); }
    form.hidden = Boolean(session.over);
  }

  // Game-over breakdowns.
  Array.prototype.forEach.call(sheet.querySelectorAll("section.game-over.offline-drawn, section.game-over"), function (node) { node.remove(); });
  var hTitle = sheet.querySelector(".hands-title");
  session.scores.forEach(function (board) {
    if (!board.over || !hTitle) { return; }
    var body = el("tbody");
    // One row per part of the score, each player's amount in their column (scoresheet.sheet_boards).
    var byLabel = [];
    (board.breakdown || []).forEach(function (line) {
      var row = byLabel.filter(function (other) { return other.label === line.label; })[0];
      if (!row) { row = { label: line.label, amounts: {} }; byLabel.push(row); }
      row.amounts[line.player && typeof line.player === "object" ? line.player.id : line.player] = line.amount;
    });
    byLabel.forEach(function (line) {
      var row = el("tr", {}, [el("th", { scope: "row", text: line.label })]);
      players.forEach(function (p) {
        var amount = line.amounts[p.id];
        row.appendChild(el("td", { "class": "num", text: amount === undefined ? "" : String(amount) }));
      });
      body.appendChild(row);
    });
    var table = el("table", { "class": "breakdown" }, [
      el("caption", { text: hollywood ? tr(gettext("Game %(number)s: how the final score adds up"), { number: board.number })
        : gettext("how the final score adds up") }),
      el("thead", {}, [el("tr", {}, [el("th", { scope: "col" }, [el("span", { "class": "vh", text: gettext("Part of the score") })])].concat(
        players.map(function (p) { return el("th", { scope: "col", text: p.name }); })))]),
      body,
      el("tfoot", {}, [
        el("tr", { "class": "final" }, [el("th", { scope: "row", text: gettext("Final score") }),
          el("td", { "class": "num", text: String(board.player_one_final) }), el("td", { "class": "num", text: String(board.player_two_final) })]),
        el("tr", {}, [el("th", { scope: "row", text: gettext("Margin") }), el("td", { "class": "num", colspan: "2", text: String(board.margin) })])
      ])
    ]);
    hTitle.parentNode.insertBefore(el("section", { "class": "game-over offline-drawn", "aria-label": hollywood ? tr(gettext("Game %(number)s result"), { number: board.number }) : gettext("Result") }, [table]), hTitle);
  });

  // The hands.
  var tbody = sheet.querySelector("table.hands tbody");
  if (tbody) {
    tbody.textContent = "";
    var running = session.scores.map(function () { return {}; });
    var editable = game.can_edit;
    // A long sheet shows only its latest hands (the page says how many); the totals still run from hand 1.
    var shown = Number(tbody.parentNode.getAttribute("data-shown")) || session.hands.length;
    var firstShown = Math.max(0, session.hands.length - shown);
    session.hands.forEach(function (scored, index) {
      var local = hands[index];
      var cells = [];
      session.scores.forEach(function (board, b) {
        var inBoard = !scored.scored_in || scored.scored_in.indexOf(board.number) >= 0;
        if (inBoard && scored.winner !== null && scored.winner !== undefined) {
          var winnerKey = typeof scored.winner === "object" ? scored.winner.id : scored.winner;
          running[b][winnerKey] = (running[b][winnerKey] || 0) + scored.points;
        }
        if (hollywood && index >= firstShown) {  // as the server's sheet: one column per game, the new total of whoever scored in it
          var scorer = inBoard && scored.winner !== null && scored.winner !== undefined ? scored.winner : null;
          var scorerId = scorer !== null && typeof scorer === "object" ? scorer.id : scorer;
          cells.push(scorerId === null ? el("td", { "class": "num run" }) : el("td", { "class": "num run" }, [
            el("span", { "class": "run-who", text: (refName(scorer, game) || "").slice(0, 4) }), " " + String(running[b][scorerId] || 0)]));
        }
      });
      if (index < firstShown) { return; }
      if (!hollywood) {
        var winnerId = scored.winner !== null && typeof scored.winner === "object" ? scored.winner.id : scored.winner;
        players.forEach(function (p) {
          cells.push(el("td", { "class": "num run" + (winnerId === p.id ? " scored" : ""), text: String(running[0][p.id] || 0) }));
        });
      }
      var words = rowWords(local.facts, scored, game);
      var what = el("td", { "class": "what" }, words.what.concat([el("span", { "class": "meta", text: words.meta })]));
      if (local.op && local.op.state === "waiting") {
        var signIn = signInNeeded(local.op);
        what.appendChild(el("span", { "class": "unsent-mark", text: signIn ? tr(gettext("not yet sent: %(what)s"), { what: signInWords(signIn, 1) }) : gettext("not yet sent") }));
      }
      if (local.conflict) { what.appendChild(el("span", { "class": "unsent-mark", text: gettext("two versions") })); }
      // The hand's result as its class, as on the server's sheet (an undercut's word in red, a dead hand muted).
      var rowClass = scored.result + (local.op || local.conflict ? " unsent" : "");
      var row = el("tr", { "class": rowClass, "data-number": String(local.number) },
        [el("td", { "class": "num", text: String(local.number) }), what,
          el("td", { "class": "num pts", text: scored.result === "dead" ? "" : String(scored.points) + (scored.doubled ? " ×2" : "") })].concat(cells));
      if (editable) {
        row.appendChild(el("td", { "class": "fix" }, [el("a", {
          href: location.pathname + "hands/" + local.number + "/edit/", "aria-label": tr(gettext("Edit hand %(number)s"), { number: local.number }), "data-offline-edit": String(local.number),
          text: gettext("Edit")
        })]));
      }
      tbody.appendChild(row);
    });
    if (!session.hands.length) { tbody.appendChild(el("tr", {}, [el("td", { colspan: "6", text: gettext("No hands yet.") })])); }
  }
  // The server's "Hand N saved" line speaks of the sheet it sent; once the phone holds a hand it has not
  // sent, that line names a hand that is no longer the last one: it goes.
  var serverNotice = sheet.querySelector("p.notice");
  if (serverNotice && hands.some(function (local) { return local && (local.op || local.conflict); })) { serverNotice.remove(); }

  // Undo: the last hand on this phone (the page had no undo button if it had no hands).
  var undo = sheet.querySelector("form.undo");
  if (!undo && game.can_edit && hands.length) {
    undo = el("form", { "class": "undo", method: "post", action: location.pathname + "hands/undo/" }, [
      el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: csrfToken() }),
      el("input", { type: "hidden", name: "number", value: String(hands.length) }),
      el("button", { type: "submit", "class": "secondary", text: tr(gettext("Undo hand %(number)s"), { number: hands.length }) })
    ]);
    var scroll = sheet.querySelector(".table-scroll");
    if (scroll) { scroll.parentNode.insertBefore(undo, scroll.nextSibling); }
  }
  if (undo) {
    var numberInput = undo.querySelector("input[name=number]");
    if (numberInput) { numberInput.value = String(hands.length); }
    var undoButton = undo.querySelector("button");
    if (undoButton) { undoButton.textContent = tr(gettext("Undo hand %(number)s"), { number: hands.length }); }
    undo.hidden = hands.length === 0;
  }

  drawConflicts(state);
}

export function drawConflicts(state) {
  var sheet = document.getElementById("sheet");
  Array.prototype.forEach.call(sheet.querySelectorAll(".conflict"), function (node) { node.remove(); });
  state.ops.filter(function (op) { return op.state === "conflict" || op.state === "refused"; }).forEach(function (op) {
    var box;
    if (op.state === "refused") {
      box = el("section", { "class": "conflict", "aria-label": gettext("Not stored") }, [
        el("h2", { text: tr(gettext("Hand %(number)s was not stored"), { number: op.number }) }),
        el("p", { text: op.problem || gettext("The server refused it.") }),
        el("p", { text: tr(gettext("This phone's version: %(facts)s"), { facts: factWords(op.facts, state.game) }) }),
        el("button", { type: "button", "class": "secondary", "data-drop": String(op.seq), text: gettext("Forget this phone's version") })
      ]);
    } else {
      var theirs = op.theirs || {};
      var twoVersions = tr(gettext("Two versions of hand %(number)s"), { number: op.number });
      box = el("section", { "class": "conflict", "aria-label": twoVersions }, [
        el("h2", { text: twoVersions }),
        el("p", { text: tr(gettext("Another phone recorded hand %(number)s while this one was offline. Keep one; the other is noted in the game's history."), { number: op.number }) }),
        el("div", { "class": "versions" }, [
          el("div", { "class": "version theirs" }, [el("h3", { text: gettext("The other phone") }), el("p", { text: theirs.words || "" }),
            el("button", { type: "button", "class": "secondary", "data-keep": "theirs", "data-seq": String(op.seq), text: gettext("Keep the other phone's") })]),
          el("div", { "class": "version ours" }, [el("h3", { text: gettext("This phone") }), el("p", { text: factWords(op.facts, state.game) }),
            el("button", { type: "button", "class": "primary", "data-keep": "ours", "data-seq": String(op.seq), text: gettext("Keep this phone's") })])
        ])
      ]);
    }
    var head = sheet.querySelector(".sheet-head");
    head.parentNode.insertBefore(box, head.nextSibling);
  });
}

// The sheet as this phone holds it. Drawn when changes wait, or when the page shows an older sheet than
// the phone's copy (a page kept for offline use, opened again); `quiet`: never drawn over the server's.
export function refresh(gameId, options) {
  return Promise.all([getGame(gameId), opsOf(gameId)]).then(function (both) {
    var stored = both[0];
    var ops = both[1];
    if (!stored || !stored.game) { return null; }
    if (stored.game.player_three) { return null; }  // four players: boards.js (refreshAny) draws the deals
    var hands = localHands(stored.game, ops);
    var shown = pageCopy(document.getElementById("sheet"));
    var behind = shown && shown.id === gameId && versionOf(shown) < versionOf(stored.game);
    var draw = (ops.length || behind) && !(options && options.quiet && !ops.length);
    // Nothing to draw: the scorer is not asked for before the page has loaded (no part of the first paint).
    return (draw ? Promise.resolve() : whenIdle()).then(function () { return score(stored.game, hands); }).then(function (session) {
      current = { gameId: gameId, game: stored.game, ops: ops, hands: hands, session: session };
      if (draw) { drawSheet(current); }
      return current;
    });
  });
}

export function say(text, refused) {
  var sheet = document.getElementById("sheet");
  if (!sheet) { return; }
  var note = sheet.querySelector(".offline-note.message");
  if (!note) {
    note = el("p", { "class": "offline-note message", role: "alert" });
    var form = sheet.querySelector("form#record") || sheet.querySelector("form.board-record") || sheet.querySelector(".boards");
    form.parentNode.insertBefore(note, form);
  }
  note.classList.toggle("refused", Boolean(refused));
  note.textContent = text;
  note.hidden = !text;
}

export function openEdit(game, number) {
  var sheet = document.getElementById("sheet");
  Array.prototype.forEach.call(sheet.querySelectorAll("form.offline-edit"), function (node) { node.remove(); });
  var hand = current && current.hands.filter(function (h) { return h.number === number; })[0];
  var facts = hand ? hand.facts : { ending: "knock" };
  var endings = Array.prototype.map.call(sheet.querySelectorAll("form#record input[name=ending]"), function (input) { return input.value; });
  if (!endings.length) { endings = ["knock", "gin", "dead"]; }
  function select(name, label, options, value) {
    var field = el("select", { name: name, id: "offline-" + name });
    options.forEach(function (option) {
      var node = el("option", { value: option[0], text: option[1] });
      if (String(option[0]) === String(value === null || value === undefined ? "" : value)) { node.selected = true; }
      field.appendChild(node);
    });
    return el("p", {}, [el("label", { "for": "offline-" + name, text: label + " " }), field]);
  }
  function numberField(name, label, value) {
    return el("p", {}, [el("label", { "for": "offline-" + name, text: label + " " }),
      el("input", { name: name, id: "offline-" + name, inputmode: "numeric", value: value === null || value === undefined ? "" : String(value) })]);
  }
  var form = el("form", { "class": "offline-edit", "data-number": String(number), "aria-label": tr(gettext("Correct hand %(number)s"), { number: number }) }, [
    el("h2", { text: tr(gettext("Correct hand %(number)s (offline)"), { number: number }) }),
    select("ending", gettext("How it ended"), endings.map(function (e) { return [e, ENDING_WORDS[e] || e]; }), facts.ending),
    select("by", gettext("Who went out"), [["", gettext("nobody (dead hand)")], [game.player_one.id, game.player_one.name], [game.player_two.id, game.player_two.name]], facts.by),
    numberField("knocker_deadwood", gettext("Knocker's deadwood"), facts.knocker_deadwood),
    numberField("defender_deadwood", gettext("Other player's deadwood"), facts.defender_deadwood),
    sheet.querySelector("form#record [name=upcard_rank]") ? numberField("upcard", gettext("Upcard (e.g. 7S)"), facts.upcard) : null,
    el("div", { id: "offline-preview", "class": "preview", "aria-live": "polite" }),
    el("div", { "class": "field reason" }, [el("label", { "for": "offline-reason", text: gettext("Reason for the correction") }),
      el("textarea", { name: "reason", id: "offline-reason", rows: "2", maxlength: "500", "aria-describedby": "offline-reason-help" }),
      el("small", { "class": "help", id: "offline-reason-help", text: gettext("Optional; required when the result was already confirmed. Shown in the game's history.") })]),
    el("div", { "class": "buttons" }, [el("button", { type: "submit", "class": "primary", text: gettext("Save correction") })])
  ]);
  var table = sheet.querySelector(".table-scroll");
  table.parentNode.insertBefore(form, table.nextSibling);
  form.addEventListener("change", function () { previewCorrection(form, game, number); });
  form.addEventListener("input", function (event) { if (event.target.name !== "reason") { previewCorrection(form, game, number); } });
  form.querySelector("select").focus();
}

// The correction's preview, as the edit page shows it online (scoring.views._preview_text and
// services.hand_edit_preview): the corrected hand, then every figure it moves, scored on this phone.
export function previewCorrection(form, game, number) {
  var box = form.querySelector("#offline-preview");
  if (!current || !box) { return Promise.resolve(); }
  var state = current;
  var facts = formFacts(form);
  var trial = state.hands.map(function (h) { return h.number === number ? facts : h.facts; });
  return engine().then(function (GinEngine) {
    box.textContent = "";
    var after;
    try {
      after = GinEngine.scoreSession(game.rules, [game.player_one, game.player_two], game.first_dealer, trial);
    } catch (error) {
      box.className = "preview refused";
      box.appendChild(el("p", { text: refusalText(error) }));
      return;
    }
    box.className = "preview";
    var before = state.session;
    var hollywood = after.scores.length > 1;
    box.appendChild(el("p", { text: resultWords(after.hands[number - 1], game, hollywood) }));
    var changes = [];
    before.hands.forEach(function (old, i) {
      var now = after.hands[i];
      if (i === number - 1 || !now) { return; }
      // as scoring.audit.outcome_words: "Bob undercut 27", "dead hand"
      var was = old.result === "dead" ? RESULT_WORDS.dead : outcomeWords(old, game);
      var is = now.result === "dead" ? RESULT_WORDS.dead : outcomeWords(now, game);
      if (was !== is) { changes.push([tr(gettext("Hand %(number)s"), { number: i + 1 }), was, is]); }
      if (refName(old.dealer, game) !== refName(now.dealer, game)) {
        changes.push([tr(gettext("Hand %(number)s dealer"), { number: i + 1 }), refName(old.dealer, game), refName(now.dealer, game)]);
      }
    });
    before.scores.forEach(function (old, g) {
      var now = after.scores[g];
      [["player_one", game.player_one], ["player_two", game.player_two]].forEach(function (pair) {
        var label = hollywood ? tr(gettext("%(name)s, game %(number)s"), { name: pair[1].name, number: now.number }) : pair[1].name;
        if (old[pair[0] + "_hand_points"] !== now[pair[0] + "_hand_points"]) {
          changes.push([label, old[pair[0] + "_hand_points"], now[pair[0] + "_hand_points"]]);
        }
        if (old[pair[0] + "_boxes"] !== now[pair[0] + "_boxes"]) {
          changes.push([tr(gettext("%(label)s, boxes"), { label: label }), old[pair[0] + "_boxes"], now[pair[0] + "_boxes"]]);
        }
      });
    });
    function outcome(session) {
      if (!session.over) { return gettext("not over"); }
      return session.winner ? tr(gettext("%(name)s wins"), { name: refName(session.winner, game) }) : gettext("level");
    }
    if (outcome(before) !== outcome(after)) { changes.push([gettext("Game"), outcome(before), outcome(after)]); }
    if (!before.over && !after.over && refName(before.next_dealer, game) !== refName(after.next_dealer, game)) {
      changes.push([gettext("Deals next"), refName(before.next_dealer, game), refName(after.next_dealer, game)]);
    }
    if (changes.length) {
      box.appendChild(el("ul", { "class": "preview-changes", "aria-label": gettext("What the correction changes") }, changes.map(function (c) {
        return el("li", { text: c[0] + " " + c[1] + " \u2192 " + c[2] });
      })));
    }
  });
}
// A hand's outcome in a sentence, as scoring.scoresheet.describe_result says it.
export function resultWords(hand, game, hollywood) {
  if (hand.result === "dead") { return tr(gettext("Dead hand: nobody scores; %(dealer)s deals again."), { dealer: refName(hand.dealer, game) }); }
  var who = { winner: refName(hand.winner, game), points: hand.points };
  var lead = {
    knock: tr(gettext("%(winner)s knocks and scores %(points)s"), who),
    undercut: tr(gettext("Undercut! %(winner)s scores %(points)s"), who),
    gin: tr(gettext("Gin! %(winner)s scores %(points)s"), who),
    big_gin: tr(gettext("Big gin! %(winner)s scores %(points)s"), who)
  }[hand.result];
  var extra = hand.doubled ? gettext(" (doubled: spade upcard)") : "";
  var games = hand.scored_in || [];
  if (hollywood) {
    extra += tr(ngettext(", in game %(games)s", ", in games %(games)s", games.length), { games: games.join(gettext(" and ")) });
  }
  return lead + extra + ".";
}

// The sheet of a game the server has not seen yet, drawn on the waiting page.
export function drawLocalSheet(gameId) {
  return getGame(gameId).then(function (stored) {
    if (!stored) { return null; }
    if (stored.movedTo) { location.assign("/games/" + stored.movedTo + "/"); return null; }
    var game = stored.game;
    var main = document.getElementById("main");
    return engine().then(function (GinEngine) {
      var rules = GinEngine.resolveRules(game.rules);
      var hollywood = Boolean(rules.hollywood);
      var players = [game.player_one, game.player_two];
      var runHeads = hollywood
        ? [1, 2, 3].map(function (n) { return el("th", { scope: "col", "class": "num run g" + n }, [tr(gettext("G%(number)s"), { number: n }), el("span", { "class": "vh", text: tr(gettext(" (game %(number)s)"), { number: n }) })]); })
        : players.map(function (p) { return el("th", { scope: "col", "class": "num run", text: p.name }); });
      var sheet = el("div", { id: "sheet", "class": "sheet" + (hollywood ? " hollywood" : ""), "data-local-game": gameId }, [
        el("div", { "class": "sheet-head" }, [
          el("h1", {}, [game.player_one.name + " ", el("span", { "class": "v", text: gettext("v") }), " " + game.player_two.name]),
          el("p", { "class": "rules-line", text: rulesLine(rules, GinEngine) }),
          el("p", { "class": "help", text: gettext("Started on this phone without a network: sent when the network is back.") })]),
        el("p", { "class": "dealer", role: "status" }),
        el("div", { "class": "boards" }),
        localRecordForm(game, rules),
        el("h2", { "class": "hands-title", text: gettext("Hands") }),
        el("div", { "class": "table-scroll", tabindex: "0", role: "region", "aria-label": gettext("Hands played") }, [el("table", { "class": "hands" }, [
          el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: gettext("Hand") }), el("th", { scope: "col", text: gettext("What happened") }),
            el("th", { scope: "col", "class": "num", text: gettext("Pts") })].concat(runHeads,
            [el("th", { scope: "col", "class": "fix" }, [el("span", { "class": "vh", text: gettext("Correct") })])]))]),
          el("tbody")])])
      ]);
      main.textContent = "";
      main.appendChild(sheet);
      return refresh(gameId).then(function (state) { if (state) { drawSheet(state); } return state; });
    });
  });
}

// The rules line as the server writes it (RuleSet.describe_overrides): the preset, then each rule
// changed from it. The words come from the waiting page (scoring.engine.rules.rule_words, #rule-words).
export function rulesLine(rules, GinEngine) {
  var words;
  try { words = JSON.parse(document.getElementById("rule-words").getAttribute("data-words")); } catch (error) { return ""; }
  var preset = GinEngine.resolveRules({ preset: rules.preset });
  var parts = [words.presets[rules.preset] || rules.preset];
  Object.keys(words.fields).forEach(function (name) {
    if (rules[name] === preset[name]) { return; }
    var value = rules[name];
    var text;
    if (words.choices[name]) { text = words.choices[name][value]; }
    else if (typeof value === "boolean") { text = value ? gettext("yes") : gettext("no"); }
    else if (value === null) { text = name === "big_gin_bonus" ? gettext("not allowed") : gettext("off"); }
    else if (name === "knock_limit" && rules.oklahoma) { text = gettext("the upcard's value"); }
    else if (name === "knock_limit" && value === 0) { text = gettext("no knocking (gin only)"); }
    else { text = String(value); }
    parts.push(tr(gettext("%(rule)s: %(value)s"), { rule: words.fields[name], value: text }));
  });
  return parts.join(" · ");
}

// The record form of scoring/templates/scoring/_hand_fields.html, for a game the server has not seen:
// the same fields, classes and labels, and the endings its rule set allows (as scoring.forms.HandForm).
export function localRecordForm(game, rules) {
  var counter = 0;
  function picks(name, css, legend, options) {
    return el("fieldset", { "class": "picks " + css }, [el("legend", { text: legend }),
      el("div", { "class": "pick-row" }, options.map(function (option) {
        var id = "local_" + name + "_" + (counter++);
        return el("label", { "class": "pick", "for": id }, [el("input", { type: "radio", name: name, value: String(option[0]), id: id }), el("span", { text: option[1] })]);
      }))]);
  }
  // The title, as the server's boxes have it: what the browser adds to its "match the requested format".
  function box(name, css, label, notWhole) {
    return el("div", { "class": "field " + css }, [el("label", { "for": "local_" + name, text: label }),
      el("input", { type: "text", name: name, id: "local_" + name, inputmode: "numeric", pattern: "[0-9]*", title: notWhole, autocomplete: "off" })]);
  }
  var endings = [];
  if (rules.oklahoma || rules.knock_limit > 0) { endings.push("knock"); }
  endings.push("gin");
  if (rules.big_gin_bonus !== null) { endings.push("big_gin"); }
  endings.push("dead");
  var upcard = rules.oklahoma ? el("fieldset", { "class": "upcard" }, [el("legend", { text: gettext("Upcard") }),
    picks("upcard_rank", "ranks", gettext("Rank"), ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"].map(function (r) { return [r, r]; })),
    picks("upcard_suit", "suits", gettext("Suit"), [["S", "\u2660 S"], ["H", "\u2665 H"], ["D", "\u2666 D"], ["C", "\u2663 C"]])]) : null;
  return el("form", { id: "record", "class": "record", method: "post", action: "" }, [
    el("h2", { text: tr(gettext("Hand %(number)s"), { number: 1 }) }),
    el("div", { "class": "record-fields" }, [
      picks("ending", "endings", gettext("How the hand ended"), endings.map(function (e) { return [e, ENDING_WORDS[e]]; })),
      picks("by", "who", gettext("Who went out"), [[game.player_one.id, game.player_one.name], [game.player_two.id, game.player_two.name]]),
      upcard,
      el("div", { id: "worked", "class": "worked" }, [el("div", { "class": "deadwood" }, [
        box("knocker_deadwood", "knocker", gettext("Knocker's deadwood"), gettext("Knocker's deadwood: enter a whole number.")),
        box("defender_deadwood", "defender", gettext("Other player's deadwood"), gettext("Other player's deadwood: enter a whole number."))])])
    ]),
    el("div", { "class": "buttons" }, [el("button", { type: "submit", name: "action", value: "save", "class": "primary", text: gettext("Save hand") })])
  ]);
}

// ---- the badge and the waiting page ---------------------------------------------------------------
export function badge() {
  var node = document.getElementById("net-badge");
  if (!node) { return Promise.resolve(); }
  return allOps().then(function (ops) {
    var conflicts = ops.filter(function (op) { return op.state !== "waiting"; }).length;
    var waiting = ops.length - conflicts;
    var text;
    var state;
    if (conflicts) { state = "conflict"; text = tr(ngettext("%(count)s to check", "%(count)s to check", conflicts), { count: conflicts }); }
    else if (offline()) {
      state = "offline";
      text = waiting ? tr(ngettext("Offline · %(count)s waiting", "Offline · %(count)s waiting", waiting), { count: waiting }) : gettext("Offline");
    }
    else if (waiting) { state = "waiting"; text = tr(ngettext("%(count)s waiting", "%(count)s waiting", waiting), { count: waiting }); }
    else { state = "online"; text = gettext("Online"); }
    node.className = "net-badge is-" + state;
    node.textContent = text;
    node.setAttribute("data-state", state);
    node.setAttribute("data-waiting", String(waiting));
    node.setAttribute("aria-label", tr(gettext("Network: %(state)s (what is waiting)"), { state: text }));
    node.hidden = false;
    pendingNote(ops);
  }).catch(function () { node.hidden = true; });
}

// The sheet's "not yet sent" line counts what the badge counts (every change this phone holds),
// from the same list at the same moment, and says how many of them are this game's.
export function pendingNote(ops) {
  var sheet = document.getElementById("sheet");
  var gameId = sheetGameId();
  if (!sheet || gameId === null) { return; }
  var waiting = ops.filter(function (op) { return op.state === "waiting"; });
  var here = waiting.filter(function (op) { return op.game === gameId; }).length;
  var note = sheet.querySelector(".offline-note.status");
  if (!note && !waiting.length) { return; }
  if (!note) {
    note = el("p", { "class": "offline-note status", role: "status" });
    var head = sheet.querySelector(".sheet-head");
    head.parentNode.insertBefore(note, head.nextSibling);
  }
  var total = waiting.length;
  var where = here === total ? "" : here ? tr(gettext(" (%(count)s to this game)"), { count: here }) : gettext(" (none to this game)");
  var blockedBy = waiting.map(signInNeeded).filter(Boolean);
  note.hidden = total === 0;
  note.textContent = !total ? "" : blockedBy.length ?
    tr(gettext("%(sign_in)s: scored on this phone, sent once %(user)s is signed in."),
      { sign_in: signInWords(blockedBy[0], blockedBy.length), user: blockedBy[0] }) :
    tr(ngettext("%(count)s change not yet sent%(where)s: scored on this phone, sent when the network is back.",
      "%(count)s changes not yet sent%(where)s: scored on this phone, sent when the network is back.", total),
      { count: total, where: where });
}

export function drawWaiting() {
  var list = document.getElementById("waiting-list");
  if (!list) { return Promise.resolve(); }
  return allOps().then(function (ops) {
    list.textContent = "";
    if (!ops.length) {
      list.appendChild(el("p", { "class": "waiting-empty", text: gettext("Nothing is waiting: everything scored on this phone has reached the server.") }));
      return;
    }
    var byGame = {};
    var order = [];
    ops.forEach(function (op) {
      if (!byGame[op.game]) { byGame[op.game] = []; order.push(op.game); }
      byGame[op.game].push(op);
    });
    return Promise.all(order.map(getGame)).then(function (games) {
      order.forEach(function (gameId, i) {
        var game = games[i] && games[i].game;
        var title = game ? tr(gettext("%(one)s v %(two)s"), { one: game.player_one.name, two: game.player_two.name })
          : tr(gettext("Game %(number)s"), { number: gameId });
        var items = byGame[gameId].map(function (op) {
          var what = op.op === "create" ? tr(gettext("New game: %(one)s v %(two)s"), { one: op.facts.player_one, two: op.facts.player_two }) :
            op.op === "add" ? tr(gettext("Hand %(number)s: %(facts)s"), { number: op.number, facts: game ? factWords(op.facts, game) : op.facts.ending })
            : op.op === "edit" ? tr(gettext("Correction of hand %(number)s: %(facts)s"), { number: op.number, facts: game ? factWords(op.facts, game) : "" })
            : tr(gettext("Undo hand %(number)s"), { number: op.number });
          var signIn = signInNeeded(op);
          var state = signIn ? signInWords(signIn, 1) : op.state === "waiting" ? gettext("not yet sent") :
            op.state === "conflict" ? gettext("two versions: choose on the sheet") : tr(gettext("refused: %(problem)s"), { problem: op.problem || "" });
          return el("li", {}, [what + " ", el("span", { "class": "unsent-mark", text: state })]);
        });
        list.appendChild(el("section", { "class": "waiting-game" }, [
          el("h2", {}, [el("a", { href: isLocal(gameId) ? CONF.waiting + "#" + gameId : "/games/" + gameId + "/", text: title })]),
          el("ol", {}, items)
        ]));
      });
    });
  });
}

// A kept copy drawn for another account, or for nobody (the worker's copy of the waiting page is made when it
// is installed, often before signing in): the header's navigation is drawn again as the network last showed it
// to this phone (common.js keeps it), so a signed-in player keeps their own links and "Sign out", never "Sign in".
export function drawKeptNav() {
  var kept = KEPT_COPY ? keptNav() : null;
  var nav = document.querySelector("header.site nav.site-nav");
  if (!kept || !nav || kept.user === PAGE_USER || !kept.items || !kept.items.length) { return; }
  nav.textContent = "";
  kept.items.forEach(function (item) {
    if (item.href) {
      nav.appendChild(el("a", item.cls ? { href: item.href, "class": item.cls, text: item.text } : { href: item.href, text: item.text }));
    } else if (item.action) {  // signing out: main.js sends what waits first, and says it needs the network
      nav.appendChild(el("form", { "class": item.cls, method: "post", action: item.action }, [
        el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: csrfToken() }),
        el("button", { type: "submit", "class": item.button || "", text: item.text })]));
    }
  });
}

// The worker answers a page it never kept with the waiting page: say so under that address, and
// list the games this phone keeps (their sheets open offline).
// A page named as the player knows it: the words of the link that led there (main.js remembers the last
// link followed), or of a link to it on this page (the navigation), else its address.
function pageName(address) {
  var followed = null;
  try { followed = JSON.parse(sessionStorage.getItem("ginleague-followed") || "null"); } catch (error) { followed = null; }
  if (followed && followed.href === address && followed.text) { return tr(gettext("\u201c%(title)s\u201d"), { title: followed.text }); }
  var link = Array.prototype.filter.call(document.querySelectorAll("a[href]"), function (a) {
    return a.getAttribute("href") === address && a.textContent.trim();
  })[0];
  return link ? tr(gettext("\u201c%(title)s\u201d"), { title: link.textContent.trim() }) : address;
}
export function drawNotKept() {
  var section = document.getElementById("not-kept");
  if (!section || location.pathname === CONF.waiting) { return Promise.resolve(); }
  section.hidden = false;
  section.querySelector("[data-address]").textContent = pageName(location.pathname + location.search);
  var title = document.getElementById("waiting-title");
  if (title) { title.replaceWith(el("h2", { id: "waiting-title", text: title.textContent })); }
  document.title = tr(gettext("Not kept for offline use · %(site)s"), { site: "GinLeague" });
  return tx("games", "readonly", function (store) { return store.getAll(); }).then(function (rows) {
    var kept = (rows || []).filter(function (row) { return row.game && !row.movedTo; })
      .sort(function (a, b) { return (b.seen || 0) - (a.seen || 0); });
    var list = document.getElementById("kept-games");
    kept.forEach(function (row) {
      var game = row.game;
      var href = isLocal(game.id) ? CONF.waiting + "#" + game.id : "/games/" + game.id + "/";
      list.appendChild(el("li", {}, [el("a", { href: href, text: tr(gettext("%(one)s v %(two)s"), { one: game.player_one.name, two: game.player_two.name }) })]));
    });
    section.querySelector(".kept-none").hidden = kept.length > 0;
    section.querySelector(".kept-some").hidden = kept.length === 0;  // never "these games" over an empty list
  });
}

