/*
 * GinEngine: the offline scorer, a line-by-line port of the pure Python engine
 * (scoring/engine/rules.py, overrides.py, score.py, and record.py without the
 * optional `cards` checks). tests/browser/test_offline_scorer.py proves it gives
 * the Python engine's answer on every golden vector and thousands of random
 * records; docs/offline.md says why a port and not Pyodide.
 *
 * A classic script, no build step: it defines one global, `GinEngine`, in a page
 * (<script src=".../js/engine.js">) or a service worker (importScripts).
 *
 * API (players are any keys the caller uses, e.g. the server's player ids):
 *
 *   GinEngine.scoreSession(rules, [p1, p2], firstDealer, hands, timeCalledAfter) -> game
 *     rules: the game's stored rule set ({"preset": "standard", ...overrides},
 *            or the full set the server keeps in game.rules);
 *     p1, p2: player ids, or the server's refs {id, name} (game.player_one);
 *     firstDealer: an id or a ref (game.first_dealer);
 *     hands: the facts, in order, as the API takes them:
 *            {ending, by, knocker_deadwood, defender_deadwood, upcard}, typed as in
 *            the API's JSON (by = the id itself, deadwood numbers or null);
 *     timeCalledAfter: the game's time_called_after (hands recorded when time was
 *            called), or null/undefined when time was not called.
 *     Returns a plain object shaped like the API's game detail
 *     (GameDetailSerializer), so the sheet draws from one shape either way:
 *       {over, winner, margin, next_dealer, hand_count, time_called_after,
 *        scores: [{number, target, player_one_hand_points, player_two_hand_points,
 *                  player_one_boxes, player_two_boxes, over, winner,
 *                  player_one_final, player_two_final, margin, closed_by_hand, by_time,
 *                  breakdown: [{label, player, amount}]}],
 *        hands: [{number, ending, by, knocker_deadwood, defender_deadwood, upcard,
 *                 dealer, result, winner, points, boxes, doubled, scored_in}]}
 *     winner / next_dealer of the sitting are the refs passed in (objects or ids),
 *     inside scores and hands they are ids, as in the API. `breakdown` and
 *     `target` are extra (the game-over sheet's bonus lines).
 *     Throws GinEngine.HandError {hand, field, message} for the first hand the
 *     server would refuse (hand is 1-based; null for the players or first
 *     dealer) and GinEngine.RuleError {field, message} for a bad rule set.
 *     A figure out of its range (or missing) also carries `detail`: the same
 *     refusal said after the field's label on a form ("Other player's deadwood:
 *     enter a number from 0 to 98, not 120"), as the engine's HandError.detail.
 *
 *   GinEngine.resolveRules(spec) -> rule set (rules.resolve_rules: typed values)
 *   GinEngine.readRules(spec)    -> rule set (overrides.read_rules: also "off", "yes", "150")
 *   GinEngine.score(ruleSet, [p1, p2], firstDealer, hands, timeCalledAfter) -> the engine's
 *     SessionResult as plain data (score.score_session), player keys as given
 *   GinEngine.evaluate(record)   -> record.evaluate: a game record's `expect`
 *     object, or {error: {hand, field}, message} ({error: {hand, board, field}} for a
 *     partnership record)
 *   GinEngine.scorePartnership(rules, [p1, p2, p3, p4], firstDealer, deals) -> the sheet
 *     of a partnership game (partnership.score_partnership): deals are
 *     [board 1's facts, board 2's facts] (the last deal may wait for a board: null);
 *     sides are 0 (p1 & p3) and 1 (p2 & p4):
 *       {over, winner, margin, next_dealer, deal_count, sides: [[p1, p3], [p2, p4]],
 *        score: {target, hand_points: [a, b], boxes: [a, b], over, winner,
 *                final: [a, b] or null, margin, closed_by_hand,
 *                breakdown: [{label, side, amount}]},
 *        deals: [{number, dealer, winner, points, settled,
 *                 boards: [{ending, by, knocker_deadwood, defender_deadwood, upcard,
 *                           dealer, result, winner, points, doubled} or null, ...]}]}
 *     winner / next_dealer / dealer of a deal are side numbers (or null);
 *     inside boards, players are as given. Throws HandError {hand, board, field, message}.
 *
 * Not ported: the `cards` fact (card_facts.py needs the meld solver). It never
 * changes a score, it can only refuse a hand; the server checks it on sync.
 * JSON cannot tell 5.0 from 5 in a browser, so a whole-number float counts as
 * a whole number here (Python refuses it).
 */
(function (root) {
  "use strict";

  // Words for people come from Django's JavaScript catalog where the page (or worker) has loaded
  // one, looked up at each use; elsewhere (a bare page, a test) they stay English. The texts are
  // the Python engine's own, so both scorers refuse a hand in the same words.
  function gettext(message) {
    return typeof root.gettext === "function" ? root.gettext(message) : message;
  }

  function interpolate(format, values, named) {
    if (typeof root.interpolate === "function") { return root.interpolate(format, values, named); }
    if (named) {
      return format.replace(/%\(\w+\)s/g, function (match) { return String(values[match.slice(2, -2)]); });
    }
    var next = 0;
    return format.replace(/%s/g, function () { return String(values[next++]); });
  }

  // ---- cards.py ----------------------------------------------------------
  var RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  var SUITS = ["S", "H", "D", "C"];

  // Python's str.strip() whitespace (JavaScript's trim() differs in a few characters).
  var PY_SPACE = "\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680" +
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

  function strip(text) {
    var start = 0;
    var end = text.length;
    while (start < end && PY_SPACE.indexOf(text.charAt(start)) >= 0) { start += 1; }
    while (end > start && PY_SPACE.indexOf(text.charAt(end - 1)) >= 0) { end -= 1; }
    return text.slice(start, end);
  }

  function repr(value) {
    if (value === null || value === undefined) { return "None"; }
    if (value === true) { return "True"; }
    if (value === false) { return "False"; }
    if (typeof value === "string") { return "'" + value + "'"; }
    try { return JSON.stringify(value); } catch (error) { return String(value); }
  }

  function CardError(message) { this.message = message; }

  function parseCard(text) {
    if (typeof text !== "string") {
      throw new CardError(interpolate(gettext("%(text)s is not a card: write rank then suit, e.g. 10H or QS"),
        { text: repr(text) }, true));
    }
    var cleaned = strip(text).toUpperCase();
    // Python slices by code point; a lone trailing surrogate pair is never a suit anyway.
    var points = Array.from(cleaned);
    var rankName = points.slice(0, -1).join("");
    var suitName = points.slice(-1).join("");
    if (rankName === "T") { rankName = "10"; }
    var rank = RANK_NAMES.indexOf(rankName) + 1;
    var suit = SUITS.indexOf(suitName);
    if (rank === 0 || suit < 0) {
      throw new CardError(interpolate(
        gettext("%(text)s is not a card: write rank (A 2..10 J Q K) then suit (S H D C), e.g. 10H or QS"),
        { text: repr(text) }, true));
    }
    return suit * 13 + rank - 1;
  }

  function cardRank(card) { return card % 13 + 1; }
  function cardSuit(card) { return SUITS[Math.floor(card / 13)]; }
  function cardValue(card) { return Math.min(card % 13 + 1, 10); }
  function cardName(card) { return RANK_NAMES[card % 13] + SUITS[Math.floor(card / 13)]; }

  // ---- rules.py ----------------------------------------------------------
  var MAX_BONUS = 10000;
  var HOLLYWOOD_GAMES = 3;

  function RuleError(field, message, detail) {
    this.name = "RuleError";
    this.field = field;
    this.message = message;
    this.detail = detail === undefined ? null : detail;
  }
  RuleError.prototype = Object.create(Error.prototype);
  RuleError.prototype.constructor = RuleError;

  var STANDARD = {
    preset: "standard", knock_limit: 10, gin_bonus: 25, big_gin_bonus: 31, undercut_bonus: 25,
    undercut_on_tie: true, target: 100, game_bonus: 100, timed_game_bonus: 100, box_bonus: 25, line_bonus: null,
    line_bonus_margin: 50, shutout_mode: "add", shutout_bonus: 100, oklahoma: false,
    oklahoma_ace: "gin_only", spade_double: false, spade_double_boxes: false, hollywood: false,
    next_dealer: "loser", partner_opponents: "fixed"
  };

  function replace(base, changes) {
    var copy = {};
    Object.keys(base).forEach(function (name) { copy[name] = base[name]; });
    Object.keys(changes).forEach(function (name) { copy[name] = changes[name]; });
    return Object.freeze(copy);
  }

  var PRESETS = {
    standard: replace(STANDARD, {}),
    classic: replace(STANDARD, {
      preset: "classic", gin_bonus: 20, big_gin_bonus: null, undercut_bonus: 10, box_bonus: 20
    }),
    lets_play: replace(STANDARD, {
      preset: "lets_play", big_gin_bonus: 25, box_bonus: 20, line_bonus: 50, line_bonus_margin: 50,
      shutout_mode: "none"
    }),
    oklahoma: replace(STANDARD, {
      preset: "oklahoma", target: 150, oklahoma: true, spade_double: true, spade_double_boxes: false
    }),
    straight: replace(STANDARD, { preset: "straight", knock_limit: 0 }),
    hollywood: replace(STANDARD, { preset: "hollywood", hollywood: true }),
    // Bicycle's partnership gin: the standard hand, a game to 125 points of a side.
    partnership: replace(STANDARD, { preset: "partnership", target: 125 })
  };
  var PARTNERSHIP_PRESETS = ["partnership"];
  var PRESET_NAMES = Object.keys(PRESETS);

  // name -> [kind, allowed values or [min, max]], in the rule book's order.
  var SCHEMA = [
    ["knock_limit", "int", [0, 10]],
    ["gin_bonus", "int", [0, MAX_BONUS]],
    ["big_gin_bonus", "int_or_null", [0, MAX_BONUS]],
    ["undercut_bonus", "int", [0, MAX_BONUS]],
    ["undercut_on_tie", "bool", null],
    ["target", "int", [1, MAX_BONUS]],
    ["game_bonus", "int", [0, MAX_BONUS]],
    ["timed_game_bonus", "int", [0, MAX_BONUS]],
    ["box_bonus", "int", [0, MAX_BONUS]],
    ["line_bonus", "int_or_null", [0, MAX_BONUS]],
    ["line_bonus_margin", "int", [0, MAX_BONUS]],
    ["shutout_mode", "choice", ["none", "add", "double_hands", "double_total"]],
    ["shutout_bonus", "int", [0, MAX_BONUS]],
    ["oklahoma", "bool", null],
    ["oklahoma_ace", "choice", ["gin_only", "one"]],
    ["spade_double", "bool", null],
    ["spade_double_boxes", "bool", null],
    ["hollywood", "bool", null],
    ["next_dealer", "choice", ["loser", "winner", "alternate"]],
    ["partner_opponents", "choice", ["fixed", "alternate"]]
  ];
  var RULE_FIELDS = SCHEMA.map(function (entry) { return entry[0]; });
  var RULE_KINDS = {};
  var RULE_ALLOWED = {};
  SCHEMA.forEach(function (entry) { RULE_KINDS[entry[0]] = entry[1]; RULE_ALLOWED[entry[0]] = entry[2]; });

  function has(object, name) { return Object.prototype.hasOwnProperty.call(object, name); }
  function isPlainObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }
  function isWholeNumber(value) { return typeof value === "number" && Number.isInteger(value); }

  function checkValue(name, value) {
    var kind = RULE_KINDS[name];
    var allowed = RULE_ALLOWED[name];
    if (kind === "bool") {
      if (typeof value !== "boolean") {
        throw new RuleError(name, interpolate(gettext("%(name)s must be true or false, not %(value)s"),
          { name: name, value: repr(value) }, true));
      }
      return value;
    }
    if (kind === "choice") {
      if (allowed.indexOf(value) < 0) {
        throw new RuleError(name, interpolate(gettext("%(name)s must be one of %(allowed)s, not %(value)s"),
          { name: name, allowed: allowed.join(", "), value: repr(value) }, true));
      }
      return value;
    }
    if (value === null && kind === "int_or_null") { return null; }
    if (!isWholeNumber(value)) {
      var notWhole = kind === "int_or_null"
        ? gettext("%(name)s must be a whole number or null, not %(value)s")
        : gettext("%(name)s must be a whole number, not %(value)s");
      throw new RuleError(name, interpolate(notWhole, { name: name, value: repr(value) }, true));
    }
    if (value < allowed[0] || value > allowed[1]) {
      throw new RuleError(name, interpolate(gettext("%(name)s must be between %(low)s and %(high)s, not %(value)s"),
        { name: name, low: allowed[0], high: allowed[1], value: value }, true),
        interpolate(gettext("enter a number from %(low)s to %(high)s, not %(value)s"),
          { low: allowed[0], high: allowed[1], value: value }, true));
    }
    return value;
  }

  function resolveRules(spec) {
    if (spec === null || spec === undefined) { spec = {}; }
    if (!isPlainObject(spec)) {
      throw new RuleError("rules", gettext("rules must be an object such as {\"preset\": \"standard\"}"));
    }
    var presetName = has(spec, "preset") ? spec.preset : "standard";
    if (typeof presetName !== "string" || !has(PRESETS, presetName)) {
      throw new RuleError("preset", interpolate(gettext("preset must be one of %(presets)s, not %(value)s"),
        { presets: PRESET_NAMES.join(", "), value: repr(presetName) }, true));
    }
    var overrides = {};
    Object.keys(spec).forEach(function (name) {
      if (name === "preset") { return; }
      if (!has(RULE_KINDS, name)) {
        throw new RuleError(name, interpolate(gettext("%(name)s is not a rule (known rules: %(known)s)"),
          { name: name, known: RULE_FIELDS.join(", ") }, true));
      }
      overrides[name] = checkValue(name, spec[name]);
    });
    // timed_game_bonus, unless given, is the resolved game_bonus.
    if (!has(overrides, "timed_game_bonus")) {
      overrides.timed_game_bonus = has(overrides, "game_bonus") ? overrides.game_bonus : PRESETS[presetName].game_bonus;
    }
    var rules = replace(PRESETS[presetName], overrides);
    checkPartnership(rules);
    return rules;
  }

  function isPartnership(rules) { return PARTNERSHIP_PRESETS.indexOf(rules.preset) >= 0; }

  // rules.check_two_players: a game of two players cannot be played under partnership rules.
  function checkTwoPlayers(rules) {
    if (isPartnership(rules)) {
      throw new RuleError("preset", gettext("partnership gin is played by four players, not two"));
    }
  }

  // Partnership gin is not played Hollywood, and its rules mean nothing to two players.
  function checkPartnership(rules) {
    if (isPartnership(rules) && rules.hollywood) {
      throw new RuleError("rules", gettext("partnership gin cannot be played Hollywood: choose one or the other"));
    }
    if (!isPartnership(rules) && rules.partner_opponents !== PRESETS.partnership.partner_opponents) {
      throw new RuleError("partner_opponents", interpolate(
        gettext("partner_opponents is a rule of partnership gin (four players), not of %(preset)s"),
        { preset: rules.preset }, true));
    }
  }

  // ---- overrides.py ------------------------------------------------------
  var YES_WORDS = ["yes", "true", "on", "y"];
  var NO_WORDS = ["no", "false", "off", "n"];
  var OFF_WORDS = ["off", "no", "none", "null", "false", "-"];

  function shown(value) { return typeof value === "string" ? "\u201c" + strip(value) + "\u201d" : repr(value); }

  function parseValue(name, value) {
    if (!has(RULE_KINDS, name)) {
      throw new RuleError(name, interpolate(gettext("%(name)s is not a rule (known rules: %(known)s)"),
        { name: name, known: RULE_FIELDS.join(", ") }, true));
    }
    var kind = RULE_KINDS[name];
    var text = typeof value === "string" ? strip(value).toLowerCase() : null;
    if (kind === "bool") {
      if (typeof value === "boolean") { return value; }
      if (YES_WORDS.indexOf(text) >= 0) { return true; }
      if (NO_WORDS.indexOf(text) >= 0) { return false; }
      throw new RuleError(name, interpolate(gettext("%(name)s must be yes or no, not %(value)s"),
        { name: name, value: shown(value) }, true));
    }
    if (kind === "choice") { return text !== null ? text : value; }
    if (kind === "int_or_null" && (value === null || value === false || OFF_WORDS.indexOf(text) >= 0)) {
      return null;
    }
    if (isWholeNumber(value)) { return value; }
    if (text !== null && /^[0-9]+$/.test(text.replace(/^-+/, ""))) { return parseInt(text, 10); }
    var notWhole = kind === "int_or_null"
      ? gettext("%(name)s must be a whole number, or off, not %(value)s")
      : gettext("%(name)s must be a whole number, not %(value)s");
    throw new RuleError(name, interpolate(notWhole, { name: name, value: shown(value) }, true));
  }

  function readRules(spec) {
    if (!isPlainObject(spec)) { return resolveRules(spec); }
    var typed = {};
    Object.keys(spec).forEach(function (name) {
      typed[name] = name === "preset" ? spec[name] : parseValue(name, spec[name]);
    });
    if (typeof typed.preset === "string") { typed.preset = strip(typed.preset).toLowerCase(); }
    return resolveRules(typed);
  }

  // ---- score.py ----------------------------------------------------------
  var ENDINGS = ["knock", "gin", "big_gin", "dead"];
  var MAX_DEADWOOD = 98; // two each of K, Q, J, 10 and 9 with no run

  // An error that names the hand (or null) and the field at fault, as the engine's HandError and RecordError do.
  // `board` (1 or 2) is the board of a partnership deal; null for a two-handed hand or a deal as a whole.
  function fieldErrorType(name) {
    function FieldError(hand, field, message, detail, board) {
      this.name = name;
      this.hand = hand;
      this.field = field;
      this.message = message;
      this.detail = detail === undefined ? null : detail;
      this.board = board === undefined ? null : board;
    }
    FieldError.prototype = Object.create(Error.prototype);
    FieldError.prototype.constructor = FieldError;
    return FieldError;
  }

  var HandError = fieldErrorType("HandError");

  function gamesPerSession(rules) { return rules.hollywood ? HOLLYWOOD_GAMES : 1; }
  function otherPlayer(players, player) { return player === players[0] ? players[1] : players[0]; }

  function effectiveKnockLimit(rules, upcard) {
    if (!rules.oklahoma || upcard === null) { return rules.knock_limit; }
    if (cardRank(upcard) === 1 && rules.oklahoma_ace === "gin_only") { return 0; }
    return cardValue(upcard);
  }

  // How a message names a hand: its number, or for a partnership board "2, board 1" (hand 2, board 1).
  function boardPlace(number, board) {
    if (board === null || board === undefined) { return number; }
    return interpolate(gettext("%(number)s, board %(board)s"), { number: number, board: board }, true);
  }

  // `missing` (translated, with %(number)s and %(name)s) asks for the figure when there is none.
  function checkDeadwood(number, name, value, low, high, missing, board) {
    var place = boardPlace(number, board);
    if (value === null || value === undefined) {
      throw new HandError(number, name, interpolate(missing, { number: place, name: name }, true),
        interpolate(gettext("enter a number from %(low)s to %(high)s"), { low: low, high: high }, true), board);
    }
    if (!isWholeNumber(value)) {
      throw new HandError(number, name,
        interpolate(gettext("hand %(number)s: %(name)s must be a whole number, not %(value)s"),
          { number: place, name: name, value: repr(value) }, true), null, board);
    }
    if (value < low || value > high) {
      throw new HandError(number, name,
        interpolate(gettext("hand %(number)s: %(name)s must be between %(low)s and %(high)s, not %(value)s"),
          { number: place, name: name, low: low, high: high, value: value }, true),
        interpolate(gettext("enter a number from %(low)s to %(high)s, not %(value)s"),
          { low: low, high: high, value: value }, true), board);
    }
    return value;
  }

  function given(value) { return value !== null && value !== undefined; }

  // Refuse a hand that breaks the rules; return its parsed upcard (or null).
  // `board`: the hand is that board of partnership deal `number`; its refusals name the board too.
  function validateHand(rules, players, facts, number, sessionOver, board) {
    var place = boardPlace(number, board);
    function refuse(field, message) { return new HandError(number, field, message, null, board); }
    if (ENDINGS.indexOf(facts.ending) < 0) {
      throw refuse("ending",
        interpolate(gettext("hand %(number)s: ending must be one of %(endings)s, not %(ending)s"),
          { number: place, endings: ENDINGS.join(", "), ending: repr(facts.ending) }, true));
    }
    if (sessionOver) {
      throw refuse("ending",
        interpolate(gettext("hand %(number)s: the game is already over, so no more hands can be recorded"),
          { number: place }, true));
    }
    var upcard = null;
    if (given(facts.upcard) && facts.upcard !== "") {
      try {
        upcard = parseCard(facts.upcard);
      } catch (error) {
        if (!(error instanceof CardError)) { throw error; }
        throw refuse("upcard", interpolate(gettext("hand %(number)s: upcard %(error)s"),
          { number: place, error: error.message }, true));
      }
    }
    if (facts.ending === "dead") {
      ["by", "knocker_deadwood", "defender_deadwood"].forEach(function (name) {
        if (given(facts[name])) {
          throw refuse(name, interpolate(gettext("hand %(number)s: a dead hand has no %(name)s"),
            { number: place, name: name }, true));
        }
      });
      return upcard;
    }
    if (!given(facts.by) || (facts.by !== players[0] && facts.by !== players[1])) {
      throw refuse("by",
        interpolate(gettext("hand %(number)s: 'by' must be one of the players (%(one)s, %(two)s), not %(by)s"),
          { number: place, one: players[0], two: players[1], by: repr(given(facts.by) ? facts.by : null) }, true));
    }
    if (rules.oklahoma && upcard === null) {
      throw refuse("upcard",
        interpolate(gettext("hand %(number)s: an Oklahoma hand needs the upcard (e.g. 7S)"), { number: place }, true));
    }
    if (facts.ending === "big_gin" && rules.big_gin_bonus === null) {
      throw refuse("ending",
        interpolate(gettext("hand %(number)s: big gin is not allowed under these rules"), { number: place }, true));
    }
    var knockerDeadwood = given(facts.knocker_deadwood) ? facts.knocker_deadwood : null;
    if (facts.ending === "knock") {
      var limit = effectiveKnockLimit(rules, upcard);
      if (limit === 0) {
        var onlyGin = rules.oklahoma
          ? gettext("hand %(number)s: the upcard is %(upcard)s, an ace, so this hand can only end in gin")
          : gettext("hand %(number)s: these rules allow gin only, no knocking");
        throw refuse("ending", interpolate(onlyGin,
          { number: place, upcard: upcard === null ? "" : cardName(upcard) }, true));
      }
      if (knockerDeadwood === 0) {
        throw refuse("knocker_deadwood",
          interpolate(gettext("hand %(number)s: knocking with 0 deadwood is gin; record it as gin"),
            { number: place }, true));
      }
      if (isWholeNumber(knockerDeadwood) && knockerDeadwood > limit) {
        var overLimit = rules.oklahoma
          ? gettext("hand %(number)s: knocker_deadwood %(deadwood)s is over the knock limit of %(limit)s" +
            " (the upcard is %(upcard)s)")
          : gettext("hand %(number)s: knocker_deadwood %(deadwood)s is over the knock limit of %(limit)s");
        throw refuse("knocker_deadwood", interpolate(overLimit, {
          number: number, deadwood: knockerDeadwood, limit: limit, upcard: upcard === null ? "" : cardName(upcard)
        }, true));
      }
      checkDeadwood(number, "knocker_deadwood", knockerDeadwood, 1, limit,
        gettext("hand %(number)s: enter the knocker's deadwood (%(name)s)"), board);
    } else if (knockerDeadwood !== null && knockerDeadwood !== 0) {
      throw refuse("knocker_deadwood",
        interpolate(facts.ending === "gin"
          ? gettext("hand %(number)s: a gin has no knocker deadwood")
          : gettext("hand %(number)s: a big gin has no knocker deadwood"), { number: place }, true));
    }
    checkDeadwood(number, "defender_deadwood",
      given(facts.defender_deadwood) ? facts.defender_deadwood : null, 0, MAX_DEADWOOD,
      gettext("hand %(number)s: enter the defender's deadwood (%(name)s)"), board);
    return upcard;
  }

  // [result, winner, points before any doubling] of a valid, non-dead hand.
  function handOutcome(rules, players, facts) {
    var by = facts.by;
    var defender = facts.defender_deadwood;
    if (facts.ending === "gin") { return ["gin", by, defender + rules.gin_bonus]; }
    if (facts.ending === "big_gin") { return ["big_gin", by, defender + rules.big_gin_bonus]; }
    var knocker = facts.knocker_deadwood;
    var undercut = defender < knocker || (defender === knocker && rules.undercut_on_tie);
    if (undercut) { return ["undercut", otherPlayer(players, by), knocker - defender + rules.undercut_bonus]; }
    return ["knock", by, defender - knocker];
  }

  // score.score_hand: [result, winner, points, doubled] of a valid, non-dead hand, the spade double applied.
  function scoreHand(rules, players, facts, upcard) {
    var outcome = handOutcome(rules, players, facts);
    // The upcard rules are Oklahoma's: elsewhere a recorded upcard is information only.
    var doubled = rules.oklahoma && rules.spade_double && upcard !== null && cardSuit(upcard) === "S";
    return [outcome[0], outcome[1], doubled ? outcome[2] * 2 : outcome[2], doubled];
  }

  function perPlayer(players, value) {
    var map = new Map();
    map.set(players[0], value);
    map.set(players[1], value);
    return map;
  }

  function line(label, player, amount) { return { label: label, player: player, amount: amount }; }

  // The end-of-game bonuses, in the rule book's order (a game ended by time: its own game bonus).
  function settle(rules, players, game) {
    var winner = game.winner;
    var loser = otherPlayer(players, winner);
    var lines = [];
    var score = new Map([[winner, game.hand_points.get(winner)], [loser, game.hand_points.get(loser)]]);
    lines.push(line(gettext("Hand points"), winner, score.get(winner)));
    lines.push(line(gettext("Hand points"), loser, score.get(loser)));
    var shutout = game.hand_points.get(loser) === 0;
    if (shutout && rules.shutout_mode === "double_hands") {
      lines.push(line(gettext("Shutout: hand points doubled"), winner, score.get(winner)));
      score.set(winner, score.get(winner) * 2);
    }
    [winner, loser].forEach(function (player) {
      var boxes = game.boxes.get(player);
      if (boxes && rules.box_bonus) {
        var amount = boxes * rules.box_bonus;
        lines.push(line(interpolate(gettext("Boxes: %(count)s \u00d7 %(bonus)s"),
          { count: boxes, bonus: rules.box_bonus }, true), player, amount));
        score.set(player, score.get(player) + amount);
      }
    });
    var gameBonus = game.by_time ? rules.timed_game_bonus : rules.game_bonus;
    if (gameBonus) {
      lines.push(line(game.by_time ? gettext("Game bonus (time called)") : gettext("Game bonus"), winner, gameBonus));
      score.set(winner, score.get(winner) + gameBonus);
    }
    if (shutout && rules.shutout_mode === "add" && rules.shutout_bonus) {
      lines.push(line(gettext("Shutout bonus"), winner, rules.shutout_bonus));
      score.set(winner, score.get(winner) + rules.shutout_bonus);
    }
    if (rules.line_bonus && score.get(winner) - score.get(loser) >= rules.line_bonus_margin) {
      lines.push(line(interpolate(gettext("Line bonus (won by %(margin)s or more)"),
        { margin: rules.line_bonus_margin }, true), winner, rules.line_bonus));
      score.set(winner, score.get(winner) + rules.line_bonus);
    }
    if (shutout && rules.shutout_mode === "double_total") {
      lines.push(line(gettext("Shutout: total doubled"), winner, score.get(winner)));
      score.set(winner, score.get(winner) * 2);
    }
    return {
      number: game.number, target: rules.target, hand_points: new Map(game.hand_points),
      boxes: new Map(game.boxes), over: true, winner: winner, loser: loser, final: score,
      margin: score.get(winner) - score.get(loser), closed_by_hand: game.closed_by_hand, breakdown: lines,
      by_time: game.by_time
    };
  }

  function snapshot(rules, game) {
    if (game.over) { return game.settled; }
    return {
      number: game.number, target: rules.target, hand_points: new Map(game.hand_points),
      boxes: new Map(game.boxes), over: false, winner: null, loser: null, final: null,
      margin: null, closed_by_hand: null, breakdown: [], by_time: false
    };
  }

  function nextDealer(rules, players, hand) {
    if (hand.result === "dead") { return hand.dealer; } // a dead hand is dealt again by the same dealer
    if (rules.next_dealer === "loser") { return hand.loser; }
    if (rules.next_dealer === "winner") { return hand.winner; }
    return otherPlayer(players, hand.dealer);
  }

  // score.check_time_call: refuse a time call that cannot have happened (null: not called).
  function checkTimeCall(rules, timeCalledAfter, handCount) {
    if (timeCalledAfter === null) { return; }
    var name = "time_called_after";
    if (isPartnership(rules)) {
      throw new HandError(null, name, gettext("a partnership game is not ended by time: time cannot be called"));
    }
    if (rules.hollywood) {
      throw new HandError(null, name, gettext("a Hollywood sitting is not ended by time: time cannot be called"));
    }
    if (rules.knock_limit === 0 && !rules.oklahoma) {
      throw new HandError(null, name,
        gettext("straight gin (gin only) is not ended by time: time cannot be called"));
    }
    if (!isWholeNumber(timeCalledAfter) || timeCalledAfter < 0) {
      throw new HandError(null, name,
        interpolate(gettext("%(name)s must be a whole number of hands (0 or more), not %(value)s"),
          { name: name, value: repr(timeCalledAfter) }, true));
    }
    if (timeCalledAfter > handCount) {
      throw new HandError(null, name,
        interpolate(gettext("%(name)s is %(value)s, but only %(count)s hands are recorded"),
          { name: name, value: timeCalledAfter, count: handCount }, true));
    }
  }

  // After a hand played once time is called: an open game whose hand points differ ends, the player ahead winning.
  function endByTime(rules, players, game, number) {
    var first = game.hand_points.get(players[0]);
    var second = game.hand_points.get(players[1]);
    if (game.over || first === second) { return; }
    game.over = true;
    game.by_time = true;
    game.winner = first > second ? players[0] : players[1];
    game.closed_by_hand = number;
    game.settled = settle(rules, players, game);
  }

  // score.score_session: hands and games with Map-keyed figures (players as given).
  function scoreMaps(rules, players, firstDealer, hands, timeCalledAfter) {
    var called = given(timeCalledAfter) ? timeCalledAfter : null;
    try {
      checkTwoPlayers(rules); // scorePartnership scores four players' deals
    } catch (error) {
      if (error instanceof RuleError) { throw new HandError(null, error.field, error.message); }
      throw error;
    }
    if (!Array.isArray(players) || players.length !== 2 || players[0] === players[1]) {
      throw new HandError(null, "players", gettext("a game needs exactly two different players"));
    }
    var pair = [players[0], players[1]];
    if (firstDealer !== pair[0] && firstDealer !== pair[1]) {
      throw new HandError(null, "first_dealer", interpolate(
        gettext("first_dealer must be one of the players, not %(value)s"), { value: repr(firstDealer) }, true));
    }
    checkTimeCall(rules, called, hands.length);
    var games = [];
    for (var n = 1; n <= gamesPerSession(rules); n += 1) {
      games.push({
        number: n, hand_points: perPlayer(pair, 0), boxes: perPlayer(pair, 0), wins: perPlayer(pair, 0),
        over: false, winner: null, closed_by_hand: null, by_time: false, settled: null
      });
    }
    var results = [];
    var dealer = firstDealer;
    hands.forEach(function (facts, index) {
      var number = index + 1;
      var sessionOver = games.every(function (game) { return game.over; });
      var upcard = validateHand(rules, pair, facts, number, sessionOver);
      var hand;
      if (facts.ending === "dead") {
        hand = { number: number, dealer: dealer, result: "dead", winner: null, loser: null, points: 0,
          boxes: 0, doubled: false, games: [] };
      } else {
        var outcome = scoreHand(rules, pair, facts, upcard);
        var winner = outcome[1];
        var points = outcome[2];
        var doubled = outcome[3];
        var boxes = doubled && rules.spade_double_boxes ? 2 : 1;
        // Hollywood flow: every open game where the winner already has a win,
        // plus the lowest-numbered open game where they have none.
        var open = games.filter(function (game) { return !game.over; });
        var receiving = open.filter(function (game) { return game.wins.get(winner); });
        var firstWithout = open.filter(function (game) { return !game.wins.get(winner); })[0];
        if (firstWithout) { receiving.push(firstWithout); }
        receiving.sort(function (a, b) { return a.number - b.number; });
        receiving.forEach(function (game) {
          game.hand_points.set(winner, game.hand_points.get(winner) + points);
          game.boxes.set(winner, game.boxes.get(winner) + boxes);
          game.wins.set(winner, game.wins.get(winner) + 1);
          if (game.hand_points.get(winner) >= rules.target) {
            game.over = true;
            game.winner = winner;
            game.closed_by_hand = number;
            game.settled = settle(rules, pair, game);
          }
        });
        hand = { number: number, dealer: dealer, result: outcome[0], winner: winner,
          loser: otherPlayer(pair, winner), points: points, boxes: boxes, doubled: doubled,
          games: receiving.map(function (game) { return game.number; }) };
      }
      if (called !== null && number > called) { endByTime(rules, pair, games[0], number); }
      results.push(hand);
      dealer = nextDealer(rules, pair, hand);
    });
    var over = games.every(function (game) { return game.over; });
    var session = {
      players: pair, hands: results,
      games: games.map(function (game) { return snapshot(rules, game); }),
      over: over, next_dealer: over ? null : dealer, winner: null, margin: null, time_called_after: called
    };
    if (over) { // SessionResult.winner / margin: the net of the games' margins
      var net = 0;
      session.games.forEach(function (game) { net += game.winner === pair[0] ? game.margin : -game.margin; });
      session.winner = net === 0 ? null : (net > 0 ? pair[0] : pair[1]);
      session.margin = Math.abs(net);
    }
    return session;
  }

  function keyed(map) { return Object.fromEntries(Array.from(map.entries())); }

  // score.score_session as plain data (figures keyed by player); throws HandError.
  function score(rules, players, firstDealer, hands, timeCalledAfter) {
    var session = scoreMaps(rules, players, firstDealer, hands, timeCalledAfter);
    session.games = session.games.map(function (game) {
      var plain = Object.assign({}, game);
      plain.hand_points = keyed(game.hand_points);
      plain.boxes = keyed(game.boxes);
      plain.final = game.final ? keyed(game.final) : null;
      return plain;
    });
    return session;
  }

  // ---- the API's game detail shape ---------------------------------------
  function idOf(player) { return isPlainObject(player) && has(player, "id") ? player.id : player; }
  function orNull(value) { return given(value) ? value : null; }

  function scoreSession(rulesSpec, players, firstDealer, hands, timeCalledAfter) {
    var rules = resolveRules(rulesSpec);
    var refs = Array.isArray(players) ? players : [];
    var ids = refs.map(idOf);
    var refOf = function (id) { return id === null ? null : refs[ids.indexOf(id)]; };
    var session = scoreMaps(rules, ids, idOf(firstDealer), hands, timeCalledAfter);
    var one = ids[0];
    var two = ids[1];
    return {
      over: session.over,
      winner: refOf(session.winner),
      margin: session.margin,
      next_dealer: refOf(session.next_dealer),
      hand_count: session.hands.length,
      time_called_after: session.time_called_after,
      scores: session.games.map(function (game) {
        return {
          number: game.number,
          target: game.target,
          player_one_hand_points: game.hand_points.get(one),
          player_two_hand_points: game.hand_points.get(two),
          player_one_boxes: game.boxes.get(one),
          player_two_boxes: game.boxes.get(two),
          over: game.over,
          winner: game.winner,
          player_one_final: game.over ? game.final.get(one) : null,
          player_two_final: game.over ? game.final.get(two) : null,
          margin: game.margin,
          closed_by_hand: game.closed_by_hand,
          by_time: game.by_time,
          breakdown: game.breakdown
        };
      }),
      hands: session.hands.map(function (hand, index) {
        var facts = hands[index];
        return {
          number: hand.number,
          ending: facts.ending,
          by: orNull(facts.by),
          knocker_deadwood: orNull(facts.knocker_deadwood),
          defender_deadwood: orNull(facts.defender_deadwood),
          upcard: given(facts.upcard) ? facts.upcard : "",
          dealer: hand.dealer,
          result: hand.result,
          winner: hand.winner,
          points: hand.points,
          boxes: hand.boxes,
          doubled: hand.doubled,
          scored_in: hand.games
        };
      })
    };
  }

  // ---- partnership.py ---------------------------------------------------
  var BOARDS = 2;

  // The two sides: the 1st and 3rd players against the 2nd and 4th (each side one array, kept by identity).
  function sidesOf(players) { return [[players[0], players[2]], [players[1], players[3]]]; }
  function sideOf(sides, player) { return sides[0].indexOf(player) >= 0 ? sides[0] : sides[1]; }

  // Who plays whom on boards 1 and 2 of deal `deal` (1-based), each as [1st side's player, 2nd side's].
  function boardPairs(rules, players, deal) {
    if (rules.partner_opponents === "alternate" && deal % 2 === 0) {
      return [[players[0], players[3]], [players[2], players[1]]];
    }
    return [[players[0], players[1]], [players[2], players[3]]];
  }

  function checkFourPlayers(players, firstDealer) {
    var distinct = Array.isArray(players) && players.length === 4 && players.every(function (player, index) {
      return players.indexOf(player) === index;
    });
    if (!distinct) { throw new HandError(null, "players", gettext("a partnership game needs four different players")); }
    if (players.indexOf(firstDealer) < 0) {
      throw new HandError(null, "first_dealer", interpolate(
        gettext("first_dealer must be one of the players, not %(value)s"), { value: repr(firstDealer) }, true));
    }
  }

  // partnership.score_partnership, with Map-keyed figures (sides as sidesOf gives them).
  function partnershipMaps(rules, players, firstDealer, deals) {
    if (!isPartnership(rules)) {
      throw new HandError(null, "rules", gettext("these rules are for two players: choose the partnership preset"));
    }
    checkFourPlayers(players, firstDealer);
    var sides = sidesOf(players);
    var game = {
      number: 1, hand_points: perPlayer(sides, 0), boxes: perPlayer(sides, 0), wins: perPlayer(sides, 0),
      over: false, winner: null, closed_by_hand: null, by_time: false, settled: null
    };
    var dealer = sideOf(sides, firstDealer);
    var results = [];
    deals.forEach(function (boards, index) {
      var number = index + 1;
      var last = number === deals.length;
      var present = Array.isArray(boards) ? boards.filter(given).length : 0;
      if (!Array.isArray(boards) || boards.length !== BOARDS || (present < BOARDS && !(last && present > 0))) {
        throw new HandError(number, "boards",
          interpolate(gettext("hand %(number)s: a deal has two boards, each a hand"), { number: number }, true));
      }
      if (game.over) {
        throw new HandError(number, "boards",
          interpolate(gettext("hand %(number)s: the game is already over, so no more hands can be recorded"),
            { number: number }, true));
      }
      var pairs = boardPairs(rules, players, number);
      var scored = boards.map(function (facts, at) {
        return given(facts) ? scoreBoard(rules, pairs[at], facts, number, at + 1, dealer) : null;
      });
      var deal = settleDeal(sides, number, dealer, scored);
      if (deal.winner !== null) {
        game.hand_points.set(deal.winner, game.hand_points.get(deal.winner) + deal.points);
        game.boxes.set(deal.winner, game.boxes.get(deal.winner) + 1);
        game.wins.set(deal.winner, game.wins.get(deal.winner) + 1);
        if (game.hand_points.get(deal.winner) >= rules.target) {
          game.over = true;
          game.winner = deal.winner;
          game.closed_by_hand = number;
          game.settled = settle(rules, sides, game);
        }
      }
      results.push(deal);
      dealer = dealAfter(rules, sides, deal);
    });
    return {
      players: players, sides: sides, deals: results, game: snapshot(rules, game), over: game.over,
      next_dealer: game.over ? null : dealer
    };
  }

  // One board's hand, scored as a two-handed hand; its dealer is the dealing side's player there.
  function scoreBoard(rules, pair, facts, number, board, dealingSide) {
    var upcard = validateHand(rules, pair, facts, number, false, board);
    var dealer = dealingSide.indexOf(pair[0]) >= 0 ? pair[0] : pair[1];
    if (facts.ending === "dead") {
      return { number: number, dealer: dealer, result: "dead", winner: null, loser: null, points: 0, boxes: 0,
        doubled: false, games: [] };
    }
    var outcome = scoreHand(rules, pair, facts, upcard);
    return { number: number, dealer: dealer, result: outcome[0], winner: outcome[1],
      loser: otherPlayer(pair, outcome[1]), points: outcome[2], boxes: 0, doubled: outcome[3], games: [] };
  }

  // The side whose players won more on the two boards wins the deal by the difference; equal is a tied deal.
  function settleDeal(sides, number, dealer, boards) {
    var settled = boards.every(function (board) { return board !== null; });
    var won = perPlayer(sides, 0);
    boards.forEach(function (board) {
      if (board !== null && board.winner !== null) {
        var side = sideOf(sides, board.winner);
        won.set(side, won.get(side) + board.points);
      }
    });
    var first = won.get(sides[0]);
    var second = won.get(sides[1]);
    if (!settled || first === second) {
      return { number: number, dealer: dealer, boards: boards, winner: null, loser: null, points: 0, settled: settled };
    }
    var winner = first > second ? sides[0] : sides[1];
    var loser = otherPlayer(sides, winner);
    return { number: number, dealer: dealer, boards: boards, winner: winner, loser: loser,
      points: Math.abs(first - second), settled: true };
  }

  // The side that deals the next deal: after a tied deal (or one still waiting for a board) the same side.
  function dealAfter(rules, sides, deal) {
    if (deal.winner === null) { return deal.dealer; }
    if (rules.next_dealer === "loser") { return deal.loser; }
    if (rules.next_dealer === "winner") { return deal.winner; }
    return otherPlayer(sides, deal.dealer);
  }

  // The sheet of a partnership game (see the API above): sides by number, players as given.
  function scorePartnership(rulesSpec, players, firstDealer, deals) {
    var rules = resolveRules(rulesSpec);
    var refs = Array.isArray(players) ? players : [];
    var ids = refs.map(idOf);
    var result = partnershipMaps(rules, ids, idOf(firstDealer), deals);
    var sides = result.sides;
    var number = function (side) { return side === null ? null : sides.indexOf(side); };
    var pair = function (map) { return map ? [map.get(sides[0]), map.get(sides[1])] : null; };
    var game = result.game;
    return {
      over: result.over,
      winner: number(game.winner),
      margin: game.margin,
      next_dealer: number(result.next_dealer),
      deal_count: result.deals.length,
      sides: [[refs[0], refs[2]], [refs[1], refs[3]]],
      score: {
        target: game.target, hand_points: pair(game.hand_points), boxes: pair(game.boxes), over: game.over,
        winner: number(game.winner), final: pair(game.final), margin: game.margin,
        closed_by_hand: game.closed_by_hand,
        breakdown: game.breakdown.map(function (line) {
          return { label: line.label, side: number(line.player), amount: line.amount };
        })
      },
      deals: result.deals.map(function (deal, index) {
        return {
          number: deal.number, dealer: number(deal.dealer), winner: number(deal.winner), points: deal.points,
          settled: deal.settled,
          boards: deal.boards.map(function (board, at) {
            if (board === null) { return null; }
            var facts = deals[index][at];
            return {
              ending: facts.ending, by: orNull(facts.by), knocker_deadwood: orNull(facts.knocker_deadwood),
              defender_deadwood: orNull(facts.defender_deadwood), upcard: given(facts.upcard) ? facts.upcard : "",
              dealer: board.dealer, result: board.result, winner: board.winner, points: board.points,
              doubled: board.doubled
            };
          })
        };
      })
    };
  }

  // ---- record.py (without the `cards` checks) ----------------------------
  var RECORD_HAND_FIELDS = ["ending", "by", "knocker_deadwood", "defender_deadwood", "upcard", "cards"];

  var RecordError = fieldErrorType("RecordError");

  function casefold(text) { return text.toUpperCase().toLowerCase(); }

  function parsePlayers(data) {
    var players = data.players;
    if (!Array.isArray(players) || players.length !== 2 ||
        !players.every(function (name) { return typeof name === "string" && strip(name) !== ""; })) {
      throw new RecordError(null, "players", gettext("players must be a list of two names, e.g. [\"Ann\", \"Bob\"]"));
    }
    if (casefold(strip(players[0])) === casefold(strip(players[1]))) {
      throw new RecordError(null, "players", gettext("the two players must have different names"));
    }
    return [strip(players[0]), strip(players[1])];
  }

  function parseHand(number, raw, board) {
    var place = boardPlace(number, board);
    function refuse(field, message) {
      var error = new RecordError(number, field, message, null, board);
      error.partnership = given(board);
      return error;
    }
    if (!isPlainObject(raw)) {
      throw refuse("ending",
        interpolate(gettext("hand %(number)s must be an object with an 'ending'"), { number: place }, true));
    }
    Object.keys(raw).forEach(function (key) {
      if (RECORD_HAND_FIELDS.indexOf(key) < 0) {
        throw refuse(key,
          interpolate(gettext("hand %(number)s: %(key)s is not a hand fact (known: %(known)s)"),
            { number: place, key: repr(key), known: RECORD_HAND_FIELDS.join(", ") }, true));
      }
    });
    var ending = raw.ending;
    if (typeof ending !== "string") {
      throw refuse("ending",
        interpolate(gettext("hand %(number)s: ending must be one of knock, gin, big_gin, dead"), { number: place }, true));
    }
    var by = orNull(raw.by);
    if (by !== null && typeof by !== "string") {
      throw refuse("by",
        interpolate(gettext("hand %(number)s: 'by' must be a player's name"), { number: place }, true));
    }
    var upcard = orNull(raw.upcard);
    if (upcard !== null && typeof upcard !== "string") {
      throw refuse("upcard",
        interpolate(gettext("hand %(number)s: upcard must be text such as \"7S\""), { number: place }, true));
    }
    return {
      ending: ending,
      by: typeof by === "string" ? strip(by) : null,
      knocker_deadwood: orNull(raw.knocker_deadwood),
      defender_deadwood: orNull(raw.defender_deadwood),
      upcard: upcard ? strip(upcard).toUpperCase() : null
    };
  }

  function scoreRecord(rules, players, firstDealer, hands, timeCalledAfter) {
    try {
      return scoreMaps(rules, players, firstDealer, hands, timeCalledAfter);
    } catch (error) {
      if (error instanceof HandError) { throw new RecordError(error.hand, error.field, error.message); }
      throw error;
    }
  }

  function parseAndScore(data) {
    if (!isPlainObject(data)) { throw new RecordError(null, "record", gettext("a game record must be a JSON object")); }
    if (namesPartnership(data)) { return parsePartnership(data); }
    var rules;
    try {
      rules = readRules(has(data, "rules") ? data.rules : { preset: "standard" });
    } catch (error) {
      if (error instanceof RuleError) { throw new RecordError(null, error.field, interpolate(gettext("rules: %(message)s"), { message: error.message }, true)); }
      throw error;
    }
    var players = parsePlayers(data);
    var firstDealer = data.first_dealer;
    if (typeof firstDealer !== "string" || players.indexOf(strip(firstDealer)) < 0) {
      throw new RecordError(null, "first_dealer", gettext("first_dealer must be the name of one of the players"));
    }
    firstDealer = strip(firstDealer);
    var rawHands = has(data, "hands") ? data.hands : [];
    if (!Array.isArray(rawHands)) { throw new RecordError(null, "hands", gettext("hands must be a list")); }
    var timeCalledAfter = orNull(data.time_called_after);
    try {
      checkTimeCall(rules, timeCalledAfter, rawHands.length);
    } catch (error) {
      if (error instanceof HandError) { throw new RecordError(error.hand, error.field, error.message); }
      throw error;
    }
    var parsed = [];
    rawHands.forEach(function (raw, index) {
      try {
        parsed.push(parseHand(index + 1, raw));
      } catch (error) {
        // The first bad hand is named: an earlier hand that breaks a rule comes first (a time
        // called later than the hands read so far has not yet happened among them).
        var called = timeCalledAfter !== null && timeCalledAfter < parsed.length ? timeCalledAfter : null;
        scoreRecord(rules, players, firstDealer, parsed, called);
        throw error;
      }
    });
    return scoreRecord(rules, players, firstDealer, parsed, timeCalledAfter);
  }

  // ---- partnership records ----------------------------------------------

  // A refusal of a partnership record: it names the board too (null for the deal or the record as a whole).
  function partnershipError(hand, field, message, board) {
    var error = new RecordError(hand, field, message, null, board);
    error.partnership = true;
    return error;
  }

  // The record's rules name a partnership preset (read before the rules are).
  function namesPartnership(data) {
    var preset = isPlainObject(data.rules) ? data.rules.preset : null;
    return typeof preset === "string" && PARTNERSHIP_PRESETS.indexOf(strip(preset).toLowerCase()) >= 0;
  }

  function parseFourPlayers(data) {
    var players = data.players;
    if (!Array.isArray(players) || players.length !== 4 ||
        !players.every(function (name) { return typeof name === "string" && strip(name) !== ""; })) {
      throw partnershipError(null, "players",
        gettext("players must be a list of four names, e.g. [\"Ann\", \"Bob\", \"Cat\", \"Dan\"]"));
    }
    var names = players.map(strip);
    var folded = names.map(casefold);
    if (folded.some(function (name, index) { return folded.indexOf(name) !== index; })) {
      throw partnershipError(null, "players", gettext("the four players must have different names"));
    }
    return names;
  }

  // A deal's raw boards: {"boards": [board 1, board 2]}, or a refusal naming the deal.
  function parseDeal(number, raw) {
    if (!isPlainObject(raw)) {
      throw partnershipError(number, "boards", interpolate(
        gettext("hand %(number)s must be a deal such as {\"boards\": [board 1, board 2]}"), { number: number }, true));
    }
    Object.keys(raw).forEach(function (key) {
      if (key !== "boards") {
        throw partnershipError(number, key, interpolate(
          gettext("hand %(number)s: %(key)s is not part of a deal (known: boards)"),
          { number: number, key: repr(key) }, true));
      }
    });
    var boards = raw.boards;
    if (!Array.isArray(boards) || boards.length !== 2) {
      throw partnershipError(number, "boards",
        interpolate(gettext("hand %(number)s: a deal has two boards, each a hand"), { number: number }, true));
    }
    return boards;
  }

  function scorePartnershipRecord(rules, players, firstDealer, deals) {
    try {
      return partnershipMaps(rules, players, firstDealer, deals);
    } catch (error) {
      if (error instanceof HandError) { throw partnershipError(error.hand, error.field, error.message, error.board); }
      throw error;
    }
  }

  function parsePartnership(data) {
    var rules;
    try {
      rules = readRules(data.rules);
    } catch (error) {
      if (error instanceof RuleError) {
        throw partnershipError(null, error.field, interpolate(gettext("rules: %(message)s"), { message: error.message }, true));
      }
      throw error;
    }
    var players = parseFourPlayers(data);
    var firstDealer = data.first_dealer;
    if (typeof firstDealer !== "string" || players.indexOf(strip(firstDealer)) < 0) {
      throw partnershipError(null, "first_dealer", gettext("first_dealer must be the name of one of the players"));
    }
    firstDealer = strip(firstDealer);
    var rawDeals = has(data, "hands") ? data.hands : [];
    if (!Array.isArray(rawDeals)) { throw partnershipError(null, "hands", gettext("hands must be a list")); }
    if (given(data.time_called_after)) {
      throw partnershipError(null, "time_called_after",
        gettext("a partnership game is not ended by time: time cannot be called"));
    }
    var deals = [];
    rawDeals.forEach(function (raw, index) {
      var number = index + 1;
      var parsed = [];
      try {
        parseDeal(number, raw).forEach(function (rawBoard, at) { parsed.push(parseHand(number, rawBoard, at + 1)); });
      } catch (error) {
        // The first fault is named: a fault of an earlier deal, or of this deal's first board, comes first.
        var waiting = parsed.length ? [[parsed[0], null]] : [];
        scorePartnershipRecord(rules, players, firstDealer, deals.concat(waiting));
        throw error;
      }
      deals.push(parsed);
    });
    return scorePartnershipRecord(rules, players, firstDealer, deals);
  }

  function partnershipExpect(result) {
    var name = function (side) { return side === null ? null : side.join(" & "); };
    var keyedBySide = function (map) {
      var plain = {};
      map.forEach(function (value, side) { plain[name(side)] = value; });
      return plain;
    };
    var game = result.game;
    var entry = { winner: name(game.winner), over: game.over, hand_points: keyedBySide(game.hand_points),
      boxes: keyedBySide(game.boxes) };
    if (game.over) {
      entry.final = keyedBySide(game.final);
      entry.margin = game.margin;
    }
    var expect = {
      hands: result.deals.map(function (deal) {
        return {
          winner: name(deal.winner), points: deal.points,
          boards: deal.boards.map(function (board) {
            return { winner: board.winner, result: board.result, points: board.points, dealer: board.dealer };
          })
        };
      }),
      games: [entry]
    };
    if (!result.over) { expect.next_dealer = name(result.next_dealer); }
    return expect;
  }

  function expectOf(session) {
    if (session.deals) { return partnershipExpect(session); }
    var expect = {
      hands: session.hands.map(function (hand) {
        return { winner: hand.winner, result: hand.result, points: hand.points, dealer: hand.dealer };
      }),
      games: session.games.map(function (game) {
        var entry = { winner: game.winner, over: game.over, hand_points: keyed(game.hand_points),
          boxes: keyed(game.boxes) };
        if (game.over) {
          entry.final = keyed(game.final);
          entry.margin = game.margin;
        }
        if (game.by_time) { entry.ended_by_time = true; }
        return entry;
      })
    };
    if (!session.over) { expect.next_dealer = session.next_dealer; }
    return expect;
  }

  function evaluate(data) {
    try {
      return expectOf(parseAndScore(data));
    } catch (error) {
      if (error instanceof RecordError) {
        var where = error.partnership
          ? { hand: error.hand, board: error.board, field: error.field }
          : { hand: error.hand, field: error.field };
        return { error: where, message: error.message };
      }
      throw error;
    }
  }

  root.GinEngine = Object.freeze({
    PRESETS: PRESETS,
    RULE_FIELDS: RULE_FIELDS,
    HandError: HandError,
    RuleError: RuleError,
    RecordError: RecordError,
    resolveRules: resolveRules,
    readRules: readRules,
    score: score,
    scoreSession: scoreSession,
    scorePartnership: scorePartnership,
    evaluate: evaluate
  });
})(typeof self !== "undefined" ? self : globalThis);
