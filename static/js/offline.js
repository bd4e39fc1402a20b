/*
 * Scoring without a network (issue 14). Every page works without this file.
 *
 * - Registers the service worker (/sw.js, scoring/pwa.py) that keeps the app shell and the pages seen.
 * - The badge in the header: online / offline / N waiting / two versions to choose from.
 * - On a scoresheet (/games/<id>/): keeps the game's facts (the sheet's data-game, the API's answers) in IndexedDB,
 *   one copy per game written only by keepGame (newer replaces older, never the reverse); without a
 *   network a new hand, a correction or an undo is queued on the phone and
 *   the sheet is redrawn at once, scored by the offline scorer (static/js/engine.js, GinEngine.scoreSession:
 *   the same rules as the server), each such hand marked "not yet sent".
 * - Sync: when the network is back, queued writes go to the API in order, each with its Idempotency-Key and
 *   expected hand number; the server's answer replaces the local figures. A 409 (another phone recorded that
 *   hand) keeps both versions on the sheet until the players choose one; the other goes to the audit trail.
 * - The waiting page (/waiting/) lists what is queued.
 * - Signing out (a shared phone): what is waiting is sent first; what cannot be sent is discarded only if the
 *   person says so; then the phone forgets the account: its kept pages, games' facts and queue. A change waits
 *   for the account that made it ("Sign in as <name> to send this hand"), never sent under another.
 *
 * IndexedDB "ginleague-offline": `games` {id, game: the API's game detail, seen}, and `queue`
 * {seq, game, op: "add"|"edit"|"remove", number, hand_id, facts, key, state: "waiting"|"conflict"|"refused",
 *  theirs, problem, made, user: the username it was made by}.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  var CONF = {
    engine: (script && script.getAttribute("data-engine")) || "/static/js/engine.js",
    sw: (script && script.getAttribute("data-sw")) || "/sw.js",
    waiting: (script && script.getAttribute("data-waiting")) || "/waiting/",
    user: (script && script.getAttribute("data-user")) || ""  // who is signed in on this page ("" nobody)
  };
  var PAGES_CACHE = "ginleague-pages";  // the service worker's kept pages (static/js/sw.js)
  var sessionEnded = false;  // the server said nobody is signed in, though this page was opened signed in
  var SHEET_PATH = /^\/games\/(\d+)\/$/;
  // Words for people come from Django's JavaScript catalog (loaded before this script): gettext, ngettext, interpolate.
  function tr(format, values) { return interpolate(format, values, true); }
  var ENDING_WORDS = { knock: gettext("Knock"), gin: gettext("Gin"), big_gin: gettext("Big gin"), dead: gettext("Dead hand") };
  var RESULT_WORDS = {
    knock: gettext("knock"), gin: gettext("gin"), big_gin: gettext("big gin"), undercut: gettext("undercut"),
    dead: gettext("dead hand")
  };
  // The history's comment when the players keep the version this phone scored offline: it is the
  // "after" of the correction, the version the other phone stored first the "before".
  var KEPT_THIS_PHONES = "Two phones recorded hand {n}; the players kept the version scored offline (after), " +
    "not the one stored first (before).";
  var netDown = false;  // a request just got no answer, even if the browser thinks it is online

  function offline() { return netDown || navigator.onLine === false; }
  // The account a waiting change must be sent as, when the page is not signed in as it (else null).
  function signInNeeded(op) {
    if (!op || op.state !== "waiting" || !op.user) { return null; }
    return op.user !== CONF.user || sessionEnded ? op.user : null;
  }
  function signInWords(user, count) {
    return tr(ngettext("Sign in as %(user)s to send this hand", "Sign in as %(user)s to send these %(count)s hands", count),
      { user: user, count: count });
  }
  function newKey() {
    if (window.crypto && crypto.randomUUID) { return "offline-" + crypto.randomUUID(); }
    return "offline-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
  }

  // ---- IndexedDB ---------------------------------------------------------------------------------
  var dbPromise = null;
  function db() {
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
  function tx(store, mode, work) {
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
  function getGame(id) { return tx("games", "readonly", function (s) { return s.get(id); }); }

  // ---- the one owner of the phone's copy of a game ----------------------------------------------------
  // Every path that shows this phone a newer sheet (a page load, a save's answer, a correction, a removal,
  // an undo, the other phone's hand through the live stream, a sync answer) hands the game to keepGame,
  // and only keepGame writes the copy. Its version is the server's `updated_at`: a copy is replaced by
  // one as new or newer, never by an older one (a page this phone kept for offline use, shown again).
  function versionOf(game) {
    var text = game && game.updated_at;
    if (!text) { return game && game.local ? Infinity : 0; }  // a game started offline: only the phone has it
    var match = String(text).match(/^(.*?T\d\d:\d\d(?::\d\d)?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/);
    if (!match) { return 0; }
    var ms = Date.parse(match[1] + (match[3] || "Z"));
    return ms * 1000 + Number(((match[2] || "") + "000000").slice(0, 6));
  }
  function keepGame(game) {
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
  var putGame = keepGame;
  // The copy the sheet on the page carries (scoring.scoresheet.offline_copy_json), in the API's shape.
  function pageCopy(sheet) {
    var text = sheet && sheet.getAttribute("data-game");
    if (!text) { return null; }
    var copy;
    try { copy = JSON.parse(text); } catch (error) { return null; }
    copy.hands = copy.hands.map(function (row, i) {
      return { id: row[0], number: i + 1, ending: row[1], by: row[2], knocker_deadwood: row[3], defender_deadwood: row[4], upcard: row[5] };
    });
    copy.hand_count = copy.hands.length;
    return copy;
  }
  // The sheet on the page changed (swapped by a save's answer or the live stream): keep what it shows.
  var keptFromPage = null;  // the data-game text last kept, so a redraw showing the same sheet costs nothing
  function keepPageCopy() {
    var sheet = document.getElementById("sheet");
    var text = sheet && sheet.getAttribute("data-game");
    if (!text || text === keptFromPage) { return Promise.resolve(null); }
    keptFromPage = text;
    var copy = pageCopy(sheet);
    if (!copy) { return Promise.resolve(null); }
    return keepGame(copy).then(function () { return refresh(copy.id, { quiet: true }); }).catch(function () { return null; });
  }
  if (window.MutationObserver) {
    new MutationObserver(function (changes) {
      var touched = changes.some(function (change) {
        var target = change.target;
        if (change.type === "attributes") { return target.id === "sheet"; }
        return Array.prototype.some.call(change.addedNodes, function (node) {
          return node.nodeType === 1 && (node.id === "sheet" || (node.querySelector && node.querySelector("#sheet")));
        });
      });
      if (touched && sheetGameId() !== null && !isLocal(sheetGameId())) { keepPageCopy(); }
    }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-game"] });
  }
  function allOps() {
    return tx("queue", "readonly", function (s) { return s.getAll(); }).then(function (ops) {
      return (ops || []).sort(function (a, b) { return a.seq - b.seq; });
    });
  }
  function opsOf(gameId) { return allOps().then(function (ops) { return ops.filter(function (op) { return op.game === gameId; }); }); }
  function putOp(op) { return tx("queue", "readwrite", function (s) { return s.put(op); }); }
  function addOp(op) { return tx("queue", "readwrite", function (s) { return s.add(op); }); }
  function dropOp(seq) { return tx("queue", "readwrite", function (s) { return s["delete"](seq); }); }

  // ---- the offline scorer, loaded only when needed ------------------------------------------------
  var enginePromise = null;
  function engine() {
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
  function whenIdle() {
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
  function engineWhenIdle() { return whenIdle().then(engine); }

  // ---- the network ------------------------------------------------------------------------------
  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) { return decodeURIComponent(match[1]); }
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; } catch (e) { return ""; }
  }
  function api(method, url, body, key) {
    var headers = { "Accept": "application/json", "X-CSRFToken": csrfToken() };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    if (key) { headers["Idempotency-Key"] = key; }
    return fetch(url, {
      method: method, headers: headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (response) {
      netDown = false;
      return response.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
        return { status: response.status, data: data, signIn: response.headers.get("X-Sign-In") === "required" };
      });
    }, function (error) { netDown = true; throw error; });
  }

  // ---- the local sheet: the server's game + the queue, scored by the engine -----------------------
  function factsOf(hand) {
    return {
      ending: hand.ending, by: hand.by === undefined ? null : hand.by,
      knocker_deadwood: hand.knocker_deadwood === undefined ? null : hand.knocker_deadwood,
      defender_deadwood: hand.defender_deadwood === undefined ? null : hand.defender_deadwood,
      upcard: hand.upcard || null
    };
  }
  function sameFacts(a, b) { return JSON.stringify(factsOf(a)) === JSON.stringify(factsOf(b)); }

  // A correction or removal names the stored hand by its id (its number moves if an earlier one goes).
  function sameHand(hand, op) { return op.hand_id ? hand.id === op.hand_id : hand.number === op.number; }
  // The hands as this phone sees them: [{number, id, facts, op}] (op: the queued write not yet sent).
  function localHands(game, ops) {
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
  // When time was called on these hands: a hand removed from before the call moves it down one, as on the
  // server (services._remove), so the call counts the stored hands from before it that are still here.
  function timeCalledAfter(game, hands) {
    var called = game.time_called_after;
    if (called === null || called === undefined) { return null; }
    var before = game.hands.filter(function (h) { return h.number <= called; }).map(function (h) { return h.id; });
    return hands.filter(function (h) { return h.id !== null && before.indexOf(h.id) >= 0; }).length;
  }
  function score(game, hands) {
    return engine().then(function (GinEngine) {
      return GinEngine.scoreSession(game.rules, [game.player_one, game.player_two], game.first_dealer,
        hands.map(function (h) { return h.facts; }), timeCalledAfter(game, hands));
    });
  }
  function names(game) {
    var map = {};
    map[game.player_one.id] = game.player_one.name;
    map[game.player_two.id] = game.player_two.name;
    return map;
  }
  function refName(ref, game) {
    if (ref === null || ref === undefined) { return null; }
    if (typeof ref === "object") { return ref.name; }
    return names(game)[ref];
  }
  function factWords(facts, game) {
    var parts = [ENDING_WORDS[facts.ending] || facts.ending];
    if (facts.by) { parts.push(tr(gettext("by %(name)s"), { name: names(game)[facts.by] })); }
    if (facts.knocker_deadwood !== null && facts.knocker_deadwood !== undefined) {
      parts.push(tr(gettext("deadwood %(deadwood)s"), { deadwood: facts.knocker_deadwood }));
    }
    if (facts.defender_deadwood !== null && facts.defender_deadwood !== undefined) {
      parts.push(tr(gettext("against %(deadwood)s"), { deadwood: facts.defender_deadwood }));
    }
    if (facts.upcard) { parts.push(tr(gettext("upcard %(card)s"), { card: facts.upcard })); }
    return parts.join(" ");
  }
  // A row of the hands table in the sheet's own words: the server hands them to the page
  // (scoring/scoresheet.py HAND_ROW_WORDS, in #hand-words), so a row drawn here reads as the server's does.
  var rowWordsCache = null;
  function rowVocabulary() {
    if (rowWordsCache) { return rowWordsCache; }
    var node = document.getElementById("hand-words");
    try { rowWordsCache = JSON.parse(node.getAttribute("data-words")); } catch (error) { rowWordsCache = null; }
    return rowWordsCache;
  }
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) { return values[name] === undefined ? whole : String(values[name]); });
  }
  // A template to nodes: its <strong> parts become strong elements, every value is text (never HTML).
  function fillNodes(template, values) {
    return template.split(/(<strong>.*?<\/strong>)/).filter(Boolean).map(function (part) {
      var strong = part.match(/^<strong>(.*)<\/strong>$/);
      return strong ? el("strong", { text: fill(strong[1], values) }) : fill(part, values);
    });
  }
  function rowWords(facts, scored, game) {
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
  function outcomeWords(hand, game) {
    if (hand.result === "dead") { return gettext("Dead hand"); }
    return tr(gettext("%(winner)s %(result)s %(points)s"),
      { winner: refName(hand.winner, game), result: RESULT_WORDS[hand.result], points: hand.points });
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") { node.textContent = attrs[name]; } else { node.setAttribute(name, attrs[name]); }
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) { return; }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  // ---- drawing the sheet from a scored session ---------------------------------------------------
  var current = null;  // {gameId, game, ops, hands, session}

  function drawSheet(state) {
    var sheet = document.getElementById("sheet");
    if (!sheet) { return; }
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

    // The boards.
    var boards = sheet.querySelector(".boards");
    if (boards) {
      boards.textContent = "";
      session.scores.forEach(function (board) {
        var gameLabel = tr(gettext("Game %(number)s"), { number: board.number });
        var section = el("section", { "class": "board" + (board.over ? " closed" : ""), "aria-label": hollywood ? gameLabel : gettext("Score") });
        if (hollywood) {
          section.appendChild(el("h2", { text: board.over ? tr(gettext("Game %(number)s closed"), { number: board.number }) : gameLabel }));
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
      (board.breakdown || []).forEach(function (line) {
        var row = el("tr", {}, [el("th", { scope: "row", text: line.label })]);
        players.forEach(function (p) {
          var amount = String(line.player) === String(p.id) || (line.player && line.player.id === p.id) ? line.amount : "";
          row.appendChild(el("td", { "class": "num", text: String(amount) }));
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
        var row = el("tr", { "class": local.op || local.conflict ? "unsent" : "", "data-number": String(local.number) },
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

  function drawConflicts(state) {
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
  function refresh(gameId, options) {
    return Promise.all([getGame(gameId), opsOf(gameId)]).then(function (both) {
      var stored = both[0];
      var ops = both[1];
      if (!stored || !stored.game) { return null; }
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

  function say(text, refused) {
    var sheet = document.getElementById("sheet");
    if (!sheet) { return; }
    var note = sheet.querySelector(".offline-note.message");
    if (!note) {
      note = el("p", { "class": "offline-note message", role: "alert" });
      var form = sheet.querySelector("form#record") || sheet.querySelector(".boards");
      form.parentNode.insertBefore(note, form);
    }
    note.classList.toggle("refused", Boolean(refused));
    note.textContent = text;
    note.hidden = !text;
  }

  // ---- queueing a change made without a network ---------------------------------------------------
  function refusal(game) {
    if (!game) { return gettext("This game was not opened on this phone while online, so it cannot be scored offline."); }
    if (game.league_status === "confirmed") {
      return gettext("This league result is confirmed: it can only be corrected online (a correction needs a reason, kept in the game's history).");
    }
    if (!game.can_edit) { return gettext("You may not change this game."); }
    return null;
  }

  // Try the change on the local sheet; queue it only if the offline scorer accepts the whole sheet.
  function queue(gameId, change) {
    return Promise.all([getGame(gameId), opsOf(gameId)]).then(function (both) {
      var stored = both[0];
      var ops = both[1];
      var refused = refusal(stored && stored.game);
      if (refused) { say(refused, true); return null; }
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
        if (!target) { say(tr(gettext("There is no hand %(number)s on this sheet."), { number: change.number }), true); return null; }
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
          if (target.number !== hands.length) { say(gettext("Only the last hand can be undone here."), true); return null; }
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
        return writes.reduce(function (chain, write) { return chain.then(write); }, Promise.resolve());
      }, function (error) {
        say(error && error.message ? error.message : String(error), true);
        throw error;
      }).then(function () {
        say("");
        return refresh(gameId).then(function (state) { if (state) { drawSheet(state); } badge(); return state; });
      });
    }).catch(function () { return null; });
  }

  function formFacts(form) {
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

  function sheetGameId() {
    var match = location.pathname.match(SHEET_PATH);
    if (match && document.getElementById("sheet")) { return Number(match[1]); }
    var local = document.querySelector("#sheet[data-local-game]");
    return local ? local.getAttribute("data-local-game") : null;
  }
  function isLocal(gameId) { return typeof gameId === "string" && gameId.indexOf("local-") === 0; }

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
    if (form.id === "record") {
      event.preventDefault();
      event.stopImmediatePropagation();
      if (action !== "save") { return; }  // previews, card grids: need the server
      queue(gameId, { op: "add", facts: formFacts(form) }).then(function (state) {
        if (!state) { return; }
        form.reset();
        // The preview said what the hand just kept would score: it is no longer the form's.
        var preview = form.querySelector("#preview");
        if (preview) { preview.innerHTML = ""; preview.classList.remove("refused"); }
        // The hand is safe on the phone: a save site.js was retrying (issue 15) is over.
        form.dispatchEvent(new CustomEvent("htmx:afterRequest", { bubbles: true, detail: { elt: form, successful: true, offline: true } }));
      });
    } else if (form.classList.contains("undo")) {
      event.preventDefault();
      event.stopImmediatePropagation();
      queue(gameId, { op: "remove", number: Number(form.querySelector("input[name=number]").value) });
    } else if (form.classList.contains("offline-edit")) {
      event.preventDefault();
      event.stopImmediatePropagation();
      var reasonBox = form.querySelector("[name=reason]");
      queue(gameId, { op: "edit", number: Number(form.getAttribute("data-number")), facts: formFacts(form), reason: reasonBox ? reasonBox.value.trim() : "" })
        .then(function (state) { if (state) { form.remove(); } });
    }
  }, true);

  // ---- signing out: the phone forgets the account ----------------------------------------------------
  // What this phone kept for the account: the pages the worker keeps (and the shell's copy of the waiting
  // page, fetched signed in), the games' facts and the queue. The next person opening them offline sees none.
  function forgetThisPhone() {
    var work = [
      tx("queue", "readwrite", function (store) { return store.clear(); }),
      tx("games", "readwrite", function (store) { return store.clear(); })
    ];
    if (window.caches) {
      work.push(caches.keys().then(function (names) {
        return Promise.all(names.map(function (name) {
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

  // Send what waits first; what still cannot be sent is discarded only if the person says so.
  function signOut(form) {
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

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || !form.classList || !form.classList.contains("sign-out") || form.getAttribute("data-forgotten")) { return; }
    event.preventDefault();
    event.stopImmediatePropagation();
    signOut(form);
  }, true);

  // Without a network htmx's requests (previews, counts) cannot be answered: do not send them.
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (navigator.onLine === false) { event.preventDefault(); }
  });

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

  function openEdit(game, number) {
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
  var REFUSAL_LABELS = { ending: gettext("How the hand ended"), by: gettext("Who went out"), knocker_deadwood: gettext("Knocker's deadwood"),
    defender_deadwood: gettext("Other player's deadwood"), upcard: gettext("Upcard") };
  function previewCorrection(form, game, number) {
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
        box.appendChild(el("p", { text: REFUSAL_LABELS[error.field]
          ? tr(gettext("%(field)s: %(message)s"), { field: REFUSAL_LABELS[error.field], message: error.message }) : error.message }));
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
  function resultWords(hand, game, hollywood) {
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

  // ---- sync ---------------------------------------------------------------------------------------
  var syncing = null;
  function sync() {
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
          if (sessionEnded || (op.user && op.user !== CONF.user)) {  // sent as the account that made it, or not at all
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
  function retryLater() {
    if (retryTimer) { return; }
    retryTimer = setTimeout(function () {
      retryTimer = null;
      if (navigator.onLine === false) { return; }  // the "online" event starts the next try
      netDown = false;
      sync().then(function (done) { if (done) { retryDelay = 500; } });
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 30000);
  }

  function handUrl(op, handId) { return "/api/games/" + op.game + "/hands/" + (handId ? handId + "/" : ""); }

  // A game started offline: its players (found or added by name), then the game; its queued hands follow it.
  function sendCreate(op) {
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
      return putGame(game).then(function () {
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

  function send(op) {
    var request;
    if (op.op === "create") {
      request = sendCreate(op);
    } else if (op.op === "add") {
      request = api("POST", handUrl(op), Object.assign({ number: op.number }, op.facts), op.key);
    } else if (op.op === "edit") {
      request = api("PUT", handUrl(op, op.hand_id), Object.assign({ reason: op.reason || "Corrected on a phone without a network" }, op.facts), op.key);
    } else {
      request = api("DELETE", handUrl(op, op.hand_id), undefined, op.key);
    }
    return request.then(function (answer) {
      if (answer.status >= 200 && answer.status < 300) {
        var chain = answer.data && answer.data.game ? putGame(answer.data.game) : Promise.resolve();
        return chain.then(function () { return dropOp(op.seq); }).then(function () { return "sent"; });
      }
      if (answer.status === 409 && op.op === "add") { return conflict(op); }
      if (answer.status === 401 || answer.signIn) {
        // Nobody is signed in any more (the session ended): it waits for its account, it is not refused.
        sessionEnded = true;
        if (op.user) { return "sign in"; }
        op.user = CONF.user;
        return putOp(op).then(function () { return "sign in"; });
      }
      if (answer.status >= 500 || answer.status === 429) { throw new Error("server busy"); }
      op.state = "refused";
      op.problem = (answer.data && (answer.data.message || answer.data.detail)) || tr(gettext("The server refused it (%(status)s)."), { status: answer.status });
      return putOp(op).then(function () { return "refused"; });
    });
  }

  // Another phone recorded this hand first: keep both versions until the players choose.
  function conflict(op) {
    return api("GET", "/api/games/" + op.game + "/").then(function (answer) {
      if (answer.status !== 200) { throw new Error("could not read the game"); }
      var game = answer.data;
      return putGame(game).then(function () {
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

  function resolveConflict(seq, keep) {
    return allOps().then(function (ops) {
      var op = ops.filter(function (o) { return o.seq === seq; })[0];
      if (!op || !op.theirs) { return null; }
      if (offline()) { say(gettext("Choosing a version needs the network: the server keeps the other one in the game's history."), true); return null; }
      var request = keep === "ours"
        ? api("PUT", handUrl(op, op.theirs.id), Object.assign({ reason: KEPT_THIS_PHONES.replace("{n}", op.number) }, op.facts), op.key + "-ours")
        : api("POST", handUrl(op, op.theirs.id) + "set-aside/", op.facts, op.key + "-theirs");
      return request.then(function (answer) {
        if (answer.status >= 300) {
          say((answer.data && answer.data.message) || gettext("The server refused it."), true);
          return null;
        }
        var chain = answer.data && answer.data.game ? putGame(answer.data.game) : Promise.resolve();
        return chain.then(function () { return dropOp(op.seq); }).then(function () { return sync(); });
      });
    }).then(function () {
      var gameId = sheetGameId();
      if (gameId) { return afterSync(gameId); }
      drawWaiting();
    });
  }

  // The server's answer replaces the local figures: once nothing is left for this game, show its page.
  function afterSync(gameId) {
    return opsOf(gameId).then(function (ops) {
      if (!ops.length) {
        if (document.querySelector("#sheet .offline-note.status, #sheet tr.unsent, #sheet .conflict")) { location.reload(); }
        return true;
      }
      return refresh(gameId).then(function (state) { if (state) { drawSheet(state); } return true; });
    });
  }

  // ---- a game started without a network ----------------------------------------------------------
  function startOffline(form) {
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
      return putGame(game).then(function () {
        return addOp({ game: id, op: "create", number: 0, facts: { player_one: one, player_two: two, first_dealer: dealer, rules: rules },
          key: newKey(), state: "waiting", made: Date.now(), user: CONF.user });
      }).then(function () { location.assign(CONF.waiting + "#" + id); });
    }, function (error) { refuse(error.message); });
  }

  // The sheet of a game the server has not seen yet, drawn on the waiting page.
  function drawLocalSheet(gameId) {
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
  function rulesLine(rules, GinEngine) {
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
  function localRecordForm(game, rules) {
    var counter = 0;
    function picks(name, css, legend, options) {
      return el("fieldset", { "class": "picks " + css }, [el("legend", { text: legend }),
        el("div", { "class": "pick-row" }, options.map(function (option) {
          var id = "local_" + name + "_" + (counter++);
          return el("label", { "class": "pick", "for": id }, [el("input", { type: "radio", name: name, value: String(option[0]), id: id }), el("span", { text: option[1] })]);
        }))]);
    }
    function box(name, css, label) {
      return el("div", { "class": "field " + css }, [el("label", { "for": "local_" + name, text: label }),
        el("input", { type: "text", name: name, id: "local_" + name, inputmode: "numeric", pattern: "[0-9]*", autocomplete: "off" })]);
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
          box("knocker_deadwood", "knocker", gettext("Knocker's deadwood")), box("defender_deadwood", "defender", gettext("Other player's deadwood"))])])
      ]),
      el("div", { "class": "buttons" }, [el("button", { type: "submit", name: "action", value: "save", "class": "primary", text: gettext("Save hand") })])
    ]);
  }

  // ---- the badge and the waiting page ---------------------------------------------------------------
  function badge() {
    var node = document.getElementById("net-badge");
    if (!node) { return Promise.resolve(); }
    return allOps().then(function (ops) {
      var conflicts = ops.filter(function (op) { return op.state !== "waiting"; }).length;
      var waiting = ops.length - conflicts;
      var text;
      var state;
      if (conflicts) { state = "conflict"; text = tr(gettext("%(count)s to check"), { count: conflicts }); }
      else if (offline()) { state = "offline"; text = waiting ? tr(gettext("Offline · %(count)s waiting"), { count: waiting }) : gettext("Offline"); }
      else if (waiting) { state = "waiting"; text = tr(gettext("%(count)s waiting"), { count: waiting }); }
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
  function pendingNote(ops) {
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

  function drawWaiting() {
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

  // The worker answers a page it never kept with the waiting page: say so under that address, and
  // list the games this phone keeps (their sheets open offline).
  function drawNotKept() {
    var section = document.getElementById("not-kept");
    if (!section || location.pathname === CONF.waiting) { return Promise.resolve(); }
    section.hidden = false;
    section.querySelector("[data-address]").textContent = location.pathname + location.search;
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
    });
  }

  // ---- start --------------------------------------------------------------------------------------
  function keepSheet() {
    // The game's facts for the offline scorer come with the page (#sheet data-game): kept unless older.
    var sheet = document.getElementById("sheet");
    var copy = pageCopy(sheet);
    if (!copy) { return Promise.resolve(); }
    keptFromPage = sheet.getAttribute("data-game");
    return keepGame(copy);
  }

  // The waiting page is kept once per tab for each signed-in state (the shell's copy may predate
  // sign-in), not at every page: each keep is one more download of it.
  function waitingKeptAs() {
    var state = document.querySelector(".nav-todo") ? "signed-in" : "signed-out";
    try {
      if (sessionStorage.getItem("ginleague-waiting-kept") === state) { return null; }
      sessionStorage.setItem("ginleague-waiting-kept", state);
    } catch (error) { /* no session storage: keep it each time */ }
    return state;
  }

  function start() {
    var ready = [];
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
      ready.push(keepSheet().then(function () { return refresh(gameId); }).then(function () {
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
  window.addEventListener("online", function () { netDown = false; badge(); setTimeout(sync, 50); });
  window.addEventListener("offline", function () { badge(); });
  window.GinOffline = { sync: sync, queue: queue, badge: badge };
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
