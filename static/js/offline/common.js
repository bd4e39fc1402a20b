/* Scoring without a network: what every part of the offline app shares (issue 14, split by concern in issue 37).
 * The page's settings (read from the site script's tag, which names main.js in data-offline-app), who is signed
 * in (the phone's last word, with the header's navigation, believed over a kept copy's), the words for people
 * (Django's JavaScript catalog, loaded before: gettext, ngettext, interpolate), the network (api: the JSON
 * API with the CSRF token, `shared.netDown` when a request got no answer), a hand's facts in words, and el(). */
// The page's settings, on the site script's tag (static/js/site.js loads main.js after the load event).
var script = document.querySelector("script[data-offline-app]");
var WAITING = (script && script.getAttribute("data-waiting")) || "/waiting/";
// Who this page was drawn for ("" nobody), as the server drew it.
export var PAGE_USER = (script && script.getAttribute("data-user")) || "";
// A page this phone kept, shown without a network, or the waiting page the service worker answers with for a
// page it never kept: not the server's answer of now, so what it says of who is signed in may be out of date
// (the worker keeps its copy of the waiting page when it is installed, often before signing in).
var USER_KEY = "ginleague-user";  // set before CONF below reads them
var NAV_KEY = "ginleague-nav";
export var KEPT_COPY = navigator.onLine === false || Boolean(document.getElementById("not-kept") && location.pathname !== WAITING);
export var CONF = {
  engine: (script && script.getAttribute("data-engine")) || "/static/js/engine.js",
  sw: (script && script.getAttribute("data-sw")) || "/sw.js",
  waiting: WAITING,
  user: signedIn()  // who is signed in on this page ("" nobody)
};
// Who is signed in: a page from the network says so, and the phone keeps it with the header's navigation as
// that page drew it. A kept copy says what was true when it was kept: the phone's last word is believed
// instead (signing out forgets it, kept.js forgetThisPhone), so the player is never asked to sign in to send
// their own hands, and sheet.js draws that account's navigation over the copy's.
function signedIn() {
  var user = PAGE_USER;
  try {
    if (!KEPT_COPY) {
      localStorage.setItem(USER_KEY, user);
      localStorage.setItem(NAV_KEY, JSON.stringify({ user: user, items: navItems() }));
    } else if (localStorage.getItem(USER_KEY) !== null) {
      user = localStorage.getItem(USER_KEY);
    }
  } catch (error) { /* storage switched off: the page's word only */ }
  return user;
}
// The header's navigation as this page draws it: its links ({href, text, cls}) and the sign-out form
// ({action, text, cls, button}); a link's own words only (the "Needs you" count is filled in later).
function navItems() {
  var nav = document.querySelector("header.site nav.site-nav");
  return nav ? Array.prototype.map.call(nav.children, function (item) {
    var words = Array.prototype.filter.call(item.childNodes, function (node) { return node.nodeType === 3; })
      .map(function (node) { return node.textContent; }).join("").trim();
    if (item.tagName === "A") { return { href: item.getAttribute("href"), text: words, cls: item.className }; }
    var button = item.tagName === "FORM" ? item.querySelector("button") : null;
    return button ? { action: item.getAttribute("action"), text: button.textContent.trim(), cls: item.className, button: button.className } : null;
  }).filter(Boolean) : [];
}
// The navigation the phone last saw from the network ({user, items}), or null.
export function keptNav() {
  try { return JSON.parse(localStorage.getItem(NAV_KEY) || "null"); } catch (error) { return null; }
}
export var SHEET_PATH = /^\/games\/(\d+)\/$/;
// Words for people come from Django's JavaScript catalog (loaded before this script): gettext, ngettext, interpolate.
export function tr(format, values) { return interpolate(format, values, true); }
export var ENDING_WORDS = { knock: gettext("Knock"), gin: gettext("Gin"), big_gin: gettext("Big gin"), dead: gettext("Dead hand") };
export var RESULT_WORDS = {
  knock: gettext("knock"), gin: gettext("gin"), big_gin: gettext("big gin"), undercut: gettext("undercut"),
  dead: gettext("dead hand")
};
export var shared = {
  netDown: false,  // a request just got no answer, even if the browser thinks it is online
  sessionEnded: false  // the server said nobody is signed in, though this page was opened signed in
};  // a request just got no answer, even if the browser thinks it is online

export function offline() { return shared.netDown || navigator.onLine === false; }
// The account a waiting change must be sent as, when the page is not signed in as it (else null).
// A refusal said as the online form says it (scoring.forms.refusal_text): the box's label, then what is
// wrong in words, never a field's code ("Other player's deadwood: enter a number from 0 to 98, not 120").
export var FIELD_LABELS = { ending: gettext("How the hand ended"), by: gettext("Who went out"),
  knocker_deadwood: gettext("Knocker's deadwood"), defender_deadwood: gettext("Other player's deadwood"), upcard: gettext("Upcard") };
var CODE_WORDS = [["knocker_deadwood", gettext("the knocker's deadwood")], ["defender_deadwood", gettext("the other player's deadwood")],
  ["'by'", gettext("who went out")], ["the defender's deadwood", gettext("the other player's deadwood")]];
export function refusalText(error) {
  var text = String((error && (error.detail || error.message)) || error);
  text = text.replace(/^[^\s\d:]+ \d+\s?: /, "");  // "hand 3: ": the form's place says which hand
  text = text.replace(/^(knocker_deadwood|defender_deadwood) (?=\d)/, "");  // the label names it
  CODE_WORDS.forEach(function (pair) { text = text.split(pair[0]).join(pair[1]); });
  CODE_WORDS.slice(0, 2).forEach(function (pair) { text = text.split(" (" + pair[1] + ")").join(""); });
  var label = error && FIELD_LABELS[error.field];
  return label ? tr(gettext("%(field)s: %(message)s"), { field: label, message: text }) : text;
}
export function signInNeeded(op) {
  if (!op || op.state !== "waiting" || !op.user) { return null; }
  return op.user !== CONF.user || shared.sessionEnded ? op.user : null;
}
export function signInWords(user, count) {
  return tr(ngettext("Sign in as %(user)s to send this hand", "Sign in as %(user)s to send these %(count)s hands", count),
    { user: user, count: count });
}
export function newKey() {
  if (window.crypto && crypto.randomUUID) { return "offline-" + crypto.randomUUID(); }
  return "offline-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
}

// ---- the network ------------------------------------------------------------------------------
export function csrfToken() {
  var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) { return decodeURIComponent(match[1]); }
  try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; } catch (e) { return ""; }
}
export function api(method, url, body, key) {
  var headers = { "Accept": "application/json", "X-CSRFToken": csrfToken() };
  if (body !== undefined) { headers["Content-Type"] = "application/json"; }
  if (key) { headers["Idempotency-Key"] = key; }
  return fetch(url, {
    method: method, headers: headers, credentials: "same-origin", cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body)
  }).then(function (response) {
    if (response.headers.get("X-GinLeague-Kept")) {  // the service worker's copy, not the server's answer: none came
      shared.netDown = true;
      throw new Error("no answer: a copy kept on this phone");
    }
    shared.netDown = false;
    return response.text().then(function (text) {
      var data = null;
      try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
      return { status: response.status, data: data, signIn: response.headers.get("X-Sign-In") === "required" };
    });
  }, function (error) { shared.netDown = true; throw error; });
}

// ---- the local sheet: the server's game + the queue, scored by the engine -----------------------
export function factsOf(hand) {
  return {
    ending: hand.ending, by: hand.by === undefined ? null : hand.by,
    knocker_deadwood: hand.knocker_deadwood === undefined ? null : hand.knocker_deadwood,
    defender_deadwood: hand.defender_deadwood === undefined ? null : hand.defender_deadwood,
    upcard: hand.upcard || null
  };
}
export function sameFacts(a, b) { return JSON.stringify(factsOf(a)) === JSON.stringify(factsOf(b)); }

export function names(game) {
  var map = {};
  [game.player_one, game.player_two, game.player_three, game.player_four].forEach(function (player) {
    if (player) { map[player.id] = player.name; }  // the third and fourth: a partnership game's
  });
  return map;
}
export function refName(ref, game) {
  if (ref === null || ref === undefined) { return null; }
  if (typeof ref === "object") { return ref.name; }
  return names(game)[ref];
}
export function factWords(facts, game) {
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
export function el(tag, attrs, children) {
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

export function sheetGameId() {
  var match = location.pathname.match(SHEET_PATH);
  if (match && document.getElementById("sheet")) { return Number(match[1]); }
  var local = document.querySelector("#sheet[data-local-game]");
  return local ? local.getAttribute("data-local-game") : null;
}
export function isLocal(gameId) { return typeof gameId === "string" && gameId.indexOf("local-") === 0; }

