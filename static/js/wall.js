/* Live pages: one Server-Sent Events stream per page; each live part of the page is re-fetched when the
 * stream says it changed. Without JavaScript every page is a plain page that a reload brings up to date.
 *
 * - The wall screen puts its stream and board URLs on <body> (data-wall-events, data-wall-board): its
 *   season stream sends "ready" and "change" with the season's version.
 * - Every other page names its stream on <body data-live-events> (/live/?game=..., ?season=..., ?club=...)
 *   and marks each live part with an id and data-live="<part>" (game, season, club, todo), optionally
 *   data-live-url (where to fetch it: the page itself by default; the part is taken from the answer by its
 *   id, or the whole answer is the part's content with data-live-inner) and data-version (the version it
 *   shows: a part already at the stream's version is not fetched again, nor redrawn from an answer at the
 *   version it shows). The stream sends "ready" (JSON:
 *   each part's version) and then one event per changed part.
 * - No screen stays behind: a part that says its version and was drawn older than the stream's newest is
 *   looked at again until it shows it; a fetch with no answer in PART_WAIT is given up and asked again (it
 *   used to leave its page busy for good); a refused one is asked again later and later.
 * - The scoresheet (#sheet) keeps a hand form being typed in: everything around it is redrawn, the form
 *   stays as typed; if its hand number was taken meanwhile the form says so and offers the next number.
 * - A page with live parts beyond the header's "Needs you" count says quietly in the header (#live-status)
 *   when its stream is down ("Not live: reconnecting…", after a moment's grace: a stream the server ends
 *   every few minutes reopens at once) and, for a few seconds, when it is live again ("Live again"). The
 *   wall screen and the bracket say it in their own status line (#wall-status). */
(function () {
  "use strict";
  if (!window.EventSource || !window.fetch) {
    return;
  }
  var wall = document.querySelector("[data-wall-events]");
  var eventsUrl = wall ? wall.getAttribute("data-wall-events") : document.body.getAttribute("data-live-events");
  var status = document.getElementById("wall-status");
  if (!eventsUrl || (!wall && !document.querySelector("[data-live]"))) {
    return;
  }
  var source = null;
  var retryTimer = null;
  var opened = false;
  var busy = {};   // url -> true while fetched
  var failed = {}; // url -> how many fetches of it in a row got no good answer (each waits longer before the next)
  var latest = {}; // part name -> the newest version the stream told (none for parts without one)
  // A part's fetch that has no answer this long is given up and asked again: an answer that never comes
  // (a request stuck in a busy server or a stalled connection) must not keep the page behind for good.
  var PART_WAIT = 10000;

  function setStatus(text, live) {
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("live", !!live);
  }

  // The header's quiet line (pages without a status line of their own, following more than the count).
  var quiet = status ? null : document.getElementById("live-status");
  if (quiet && !document.querySelector("[data-live]:not([data-live=todo])")) { quiet = null; }
  var GRACE = 2000;     // down this long before the page says so
  var AGAIN = 5000;     // "Live again" shows this long
  var downTimer = null;
  var againTimer = null;
  var saidDown = false;
  function say(text, down) {
    quiet.textContent = text;
    quiet.classList.toggle("is-down", down);
    quiet.hidden = !text;
  }
  function showLive(state) {
    if (!quiet) return;
    if (state === "up") {
      window.clearTimeout(downTimer);
      downTimer = null;
      if (!saidDown) return;
      saidDown = false;
      say(gettext("Live again"), false);
      window.clearTimeout(againTimer);
      againTimer = window.setTimeout(function () { if (!saidDown) say("", false); }, AGAIN);
    } else if (state === "unlive") {
      window.clearTimeout(downTimer);
      saidDown = true;
      say(gettext("Not live: reload for the latest"), true);
    } else if (!saidDown && downTimer === null) {
      downTimer = window.setTimeout(function () {  // no "ready" meanwhile (that clears this timer)
        downTimer = null;
        saidDown = true;
        window.clearTimeout(againTimer);
        say(gettext("Not live: reconnecting…"), true);
      }, GRACE);
    }
  }

  // The live parts on the page now, each {element, names, url}.
  function parts() {
    if (wall) {
      var board = document.getElementById("wall-board");
      return board ? [{ element: board, names: ["change"], url: wall.getAttribute("data-wall-board") }] : [];
    }
    return Array.prototype.map.call(document.querySelectorAll("[data-live][id]"), function (element) {
      return {
        element: element,
        names: element.getAttribute("data-live").split(/\s+/),
        url: element.getAttribute("data-live-url") || window.location.pathname + window.location.search
      };
    });
  }

  // The alert a half-typed form shows when the other phone moved the sheet on under it, under its heading.
  function takenNotice(form) {
    var notice = document.createElement("div");
    notice.className = "hand-taken";
    notice.setAttribute("role", "alert");
    var heading = form.querySelector("h2");
    form.insertBefore(notice, heading ? heading.nextSibling : form.firstChild);
    return notice;
  }
  // Its "Discard what I typed": the form is no longer held, and the sheet is drawn as the server has it.
  function dropTyped(form) {
    var drop = document.createElement("button");
    drop.type = "button";
    drop.className = "link drop-typed";
    drop.textContent = gettext("Discard what I typed");
    drop.addEventListener("click", function () {
      form.removeAttribute("data-typed");
      refresh(parts().filter(function (part) { return part.element.id === "sheet"; }).map(function (part) {
        part.force = true;  // drawn even at the version it shows: what was typed goes
        return part;
      }));
    });
    return drop;
  }

  // ---- the scoresheet: never lose a hand being typed -------------------------------------------------
  // A form being typed in is marked data-typed by static/js/site.js, from before this script comes.
  // The record forms: the next hand's (#record), or in partnership gin one per board of the deal in play.
  function isRecordForm(form) {
    return Boolean(form && (form.id === "record" || (form.classList && form.classList.contains("board-record"))));
  }
  function saving() {
    var line = document.getElementById("save-status");
    return Boolean(document.querySelector("#record.htmx-request, form.board-record.htmx-request") ||
      (line && !line.hidden && line.getAttribute("data-state") === "saving"));
  }
  function heldOnPhone(sheet) {
    // The phone holds changes for this sheet (hands not yet sent, or two versions to choose from): it stays.
    // A sheet the offline app drew with nothing left waiting (a hand scored and undone offline) follows again.
    return navigator.onLine === false || Boolean(sheet.querySelector(".offline-note.status:not([hidden]), .conflict, tr.unsent"));
  }
  function slotOf(node, root) {
    while (node && node.parentNode !== root) { node = node.parentNode; }
    return node;
  }
  function expectedNumber(form) {
    var input = form && form.querySelector("input[name=expected_number]");
    return input ? input.value : "";
  }
  // Every form being typed stays as it is (the child of #sheet holding it, its slot, is never taken out, so
  // the focus and what was typed stay); everything around the slots is the fresh sheet's, in its order.
  function mergeSheet(sheet, fresh) {
    var typed = Array.prototype.filter.call(sheet.querySelectorAll("form"), function (form) {
      return isRecordForm(form) && form.getAttribute("data-typed") === "1";
    });
    if (!typed.length) {
      sheet.replaceWith(fresh);
      return [fresh];
    }
    var kept = typed.map(function (form) {
      var freshForm = fresh.querySelector("form#" + form.id);
      return { form: form, slot: slotOf(form, sheet), freshForm: freshForm, freshSlot: freshForm ? slotOf(freshForm, fresh) : null };
    });
    var slots = kept.map(function (item) { return item.slot; });
    var freshSlots = kept.map(function (item) { return item.freshSlot; });
    Array.prototype.forEach.call(fresh.attributes, function (attribute) {
      sheet.setAttribute(attribute.name, attribute.value);
    });
    Array.prototype.slice.call(sheet.childNodes).forEach(function (node) {
      if (slots.indexOf(node) < 0) { sheet.removeChild(node); }
    });
    var added = [];
    var next = 0;  // the kept slot the fresh nodes go before (a form with no fresh place stays last)
    Array.prototype.slice.call(fresh.childNodes).forEach(function (node) {
      var at = freshSlots.indexOf(node);
      if (at >= 0) { next = Math.max(next, at + 1); return; }
      if (next < slots.length) { sheet.insertBefore(node, slots[next]); } else { sheet.appendChild(node); }
      if (node.nodeType === 1) { added.push(node); }
    });
    kept.forEach(function (item) {
      if (item.form.id === "record") { offerNext(item.form, item.freshForm); } else { boardTaken(item.form, item.freshForm); }
    });
    return added;
  }
  // A board of a partnership deal being typed here was recorded on another phone meanwhile (the fresh sheet
  // has no form for it, or one for a later deal): say so before Save, and offer to drop what was typed.
  function boardTaken(form, freshForm) {
    var notice = form.querySelector(".hand-taken");
    if (freshForm && freshForm.getAttribute("data-deal") === form.getAttribute("data-deal")) {
      if (notice) { notice.remove(); }
      return;
    }
    notice = notice || takenNotice(form);
    notice.textContent = "";
    var text = document.createElement("p");
    text.textContent = interpolate(gettext("Board %(board)s of deal %(number)s was recorded on another phone meanwhile."),
      { board: form.getAttribute("data-board"), number: form.getAttribute("data-deal") }, true);
    notice.appendChild(text);
    notice.appendChild(dropTyped(form));
  }
  // The hand number this form was typed for moved on another phone (a hand recorded there, or one
  // removed): say which before Save, and offer the number the hand would have now.
  function offerNext(form, freshForm) {
    var typedFor = expectedNumber(form);
    var next = expectedNumber(freshForm);
    var notice = form.querySelector(".hand-taken");
    if (typedFor === next) {
      if (notice) { notice.remove(); }
      return;
    }
    notice = notice || takenNotice(form);
    notice.textContent = "";
    var text = document.createElement("p");
    var removed = next ? parseInt(typedFor, 10) - parseInt(next, 10) : 0;
    if (removed > 0) {
      text.textContent = interpolate(ngettext("A hand was removed on another phone meanwhile.",
        "%(count)s hands were removed on another phone meanwhile.", removed), { count: removed }, true);
    } else {
      text.textContent = next
        ? interpolate(gettext("Hand %(number)s was recorded on another phone meanwhile."), { number: typedFor }, true)
        : interpolate(gettext("Hand %(number)s was recorded on another phone meanwhile, and the game is over."),
          { number: typedFor }, true);
    }
    notice.appendChild(text);
    if (next) {
      var take = document.createElement("button");
      take.type = "button";
      take.className = "secondary take-next";
      take.textContent = interpolate(gettext("Record this as hand %(number)s"), { number: next }, true);
      take.addEventListener("click", function () {
        form.querySelector("input[name=expected_number]").value = next;
        var heading = form.querySelector("h2");
        if (heading) { heading.textContent = interpolate(gettext("Hand %(number)s"), { number: next }, true); }
        notice.remove();
      });
      notice.appendChild(take);
    }
    notice.appendChild(dropTyped(form));
  }

  // ---- fetching parts ---------------------------------------------------------------------------------
  // Draw ``part`` from a page's answer; false when it stays as it is (gone, not in the answer, held on the
  // phone, or already at the answer's version: a redraw would only take away what the page shows beside
  // its figures, such as a save's "Hand 3 saved", and the focus). ``force``: drawn whatever its version.
  function put(part, html, force) {
    var element = part.element;
    if (!document.body.contains(element)) { return false; }
    var added;
    if (element.hasAttribute("data-live-inner")) {
      element.innerHTML = html;
      added = [element];
    } else {
      var template = document.createElement("template");
      template.innerHTML = html;
      var fresh = template.content.getElementById(element.id);
      if (!fresh) { return false; }
      var shown = element.getAttribute("data-version");
      if (!force && shown !== null && shown === fresh.getAttribute("data-version")) { return false; }
      if (element.id === "sheet") {
        if (heldOnPhone(element)) { return false; }
        added = mergeSheet(element, fresh);
      } else {
        element.replaceWith(fresh);
        added = [fresh];
      }
    }
    if (window.htmx) { added.forEach(function (node) { window.htmx.process(node); }); }
    document.dispatchEvent(new Event("live:drawn"));
    return true;
  }

  // Parts to fetch are gathered for a moment (a change often names several parts, or comes with
  // others) and fetched only while the stream is up: a stream the server just ended (it is shutting
  // down) is followed by its "ready" later, which brings every part up to date.
  var wanting = [];
  var wantTimer = null;
  function refresh(wanted) {
    wanting = wanting.concat(wanted);
    if (wantTimer === null) { wantTimer = window.setTimeout(refreshNow, 50); }
  }
  function refreshNow() {
    var wanted = wanting;
    wanting = [];
    wantTimer = null;
    if (!source || source.readyState !== EventSource.OPEN) { return; }
    var byUrl = {};
    wanted.forEach(function (part) {
      var group = byUrl[part.url] = byUrl[part.url] || [];
      var same = group.filter(function (other) { return other.element === part.element; })[0];
      if (!same) { group.push(part); } else if (part.force) { same.force = true; }
    });
    Object.keys(byUrl).forEach(function (url) { fetchParts(url, byUrl[url]); });
  }

  // Look again later at the parts ``group`` named: whatever is still behind the stream's newest
  // version then (found again by id: a save's answer may have replaced an element) is fetched, and a
  // part that was to be drawn whatever its version (``force``) is fetched again as such.
  function later(group, delay) {
    var ids = group.map(function (part) { return part.element.id; });
    var forcedIds = group.filter(function (part) { return part.force; }).map(function (part) { return part.element.id; });
    window.setTimeout(function () {
      var names = {};
      group.forEach(function (part) { part.names.forEach(function (name) { names[name] = true; }); });
      var forced = parts().filter(function (part) { return forcedIds.indexOf(part.element.id) >= 0; });
      forced.forEach(function (part) { part.force = true; });
      refresh(Object.keys(names).reduce(function (all, name) {
        return all.concat(stale(name, latest[name]).filter(function (part) { return ids.indexOf(part.element.id) >= 0; }));
      }, forced));
    }, delay || 300);
  }

  function fetchParts(url, group) {
    if (busy[url] || (saving() && group.some(function (part) { return part.element.id === "sheet"; }))) {
      later(group);
      return;
    }
    busy[url] = true;
    var asked = group.map(function (part) { return part.element; });
    var forced = group.filter(function (part) { return part.force; }).map(function (part) { return part.element; });
    var controller = window.AbortController ? new AbortController() : null;
    var clock = controller ? window.setTimeout(function () { controller.abort(); }, PART_WAIT) : null;
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" }, signal: controller ? controller.signal : undefined })
      .then(function (response) {
        // Read whole even when refused: a body left unread holds its connection.
        return response.text().then(function (html) {
          if (!response.ok) throw new Error("part answered " + response.status);
          return html;
        });
      })
      .then(function (html) {
        failed[url] = 0;
        // Only parts still on the page as they were when asked for: one replaced meanwhile (the answer to
        // a save on this phone) is as new as this answer or newer, and stays.
        var drawn = parts().filter(function (part) {
          return asked.indexOf(part.element) >= 0 && put(part, html, forced.indexOf(part.element) >= 0);
        });
        // A part drawn before the newest change its stream told of (read a moment too early, or that change
        // came while this answer travelled): look again, until it shows the newest. Only parts that say their
        // version (a wall's board, a scoresheet) can tell; the others were fetched again at each change.
        var behind = parts().filter(function (part) {
          var shown = part.element.getAttribute("data-version");
          return shown !== null && drawn.some(function (done) { return done.element.id === part.element.id; }) &&
            part.names.some(function (name) { return latest[name] !== undefined && latest[name] !== shown; });
        });
        if (behind.length) { later(behind); }
        setStatus(interpolate(gettext("Live · updated %(time)s"), { time: new Date().toLocaleTimeString() }, true), true);
      })
      .catch(function () {
        // Try again while the stream is up, waiting longer after each answer that did not come (a page that
        // is gone is not asked for three times a second); once the stream is down (the server stopped or
        // restarts), its next "ready" brings every part up to date instead.
        if (source && source.readyState === EventSource.OPEN) {
          setStatus(gettext("Could not update: retrying"), false);
          failed[url] = (failed[url] || 0) + 1;
          later(group, Math.min(300 * Math.pow(2, failed[url] - 1), PART_WAIT));
        }
      })
      .finally(function () {
        window.clearTimeout(clock);
        busy[url] = false;
      });
  }

  // Parts named by the stream whose shown version is not ``version`` (every such part when no version).
  function stale(name, version) {
    return parts().filter(function (part) {
      if (part.names.indexOf(name) < 0) return false;
      var shown = part.element.getAttribute("data-version");
      return shown === null || version === undefined || shown !== version;
    });
  }

  function onReady(event) {
    setStatus(gettext("Live"), true);
    showLive("up");
    var versions;
    if (wall) {
      versions = { change: event.data };
    } else {
      try { versions = JSON.parse(event.data); } catch (error) { versions = {}; }
    }
    Object.keys(versions).forEach(function (name) { latest[name] = versions[name]; });
    // Catch up with what changed while (re)connecting: parts with a version say whether they missed
    // something; the others are fetched again only after a reconnect (they were just drawn before).
    var missed = parts().filter(function (part) {
      return part.names.some(function (name) {
        var shown = part.element.getAttribute("data-version");
        if (shown !== null) return name in versions && versions[name] !== shown;
        return opened;
      });
    });
    opened = true;
    refresh(missed);
  }

  function connect() {
    window.clearTimeout(retryTimer);
    if (source) source.close();
    source = null;
    if (navigator.onLine === false) {
      // No network: the page is this phone's copy (static/js/offline/); follow again once it is back.
      setStatus(gettext("Offline"), false);
      showLive("down");
      return;
    }
    var stream = source = new EventSource(eventsUrl);
    stream.addEventListener("ready", onReady);
    (wall ? ["change"] : ["game", "season", "club", "todo"]).forEach(function (name) {
      stream.addEventListener(name, function (event) {
        latest[name] = event.data;
        refresh(stale(name, event.data));
      });
    });
    stream.addEventListener("unlive", function () {
      stream.close(); // a server that cannot hold streams (WSGI): the page stays a plain page
      setStatus(gettext("Not live: reload for the latest"), false);
      showLive("unlive");
    });
    stream.addEventListener("closing", function () {
      // The server is shutting down: come back to its successor a little later, not all pages at once.
      stream.close();
      setStatus(gettext("Reconnecting…"), false);
      showLive("down");
      retryTimer = window.setTimeout(connect, 10000 + Math.random() * 10000);
    });
    stream.addEventListener("bye", function () {
      connect(); // the server ends each stream after a few minutes: open the next one at once
    });
    stream.addEventListener("error", function () {
      setStatus(gettext("Reconnecting…"), false);
      showLive("down");
      if (stream === source && stream.readyState === EventSource.CLOSED && navigator.onLine !== false) {
        // The browser gave up (e.g. the server answered an error): try again ourselves.
        retryTimer = window.setTimeout(connect, 3000);
      }
    });
  }

  window.addEventListener("offline", function () { if (source) { source.close(); source = null; } });
  window.addEventListener("online", function () { if (!source) { connect(); } });
  connect();
})();

/* A timed round's clock (a Swiss night, on the night page and the wall): the page gives the deadline and
 * the server's time when it was drawn, so the countdown follows the server's clock, not the device's; it
 * asks nothing of the server. A redrawn part brings a new clock, read afresh on the next tick. */
(function () {
  "use strict";
  function two(n) { return (n < 10 ? "0" : "") + n; }
  function tick() {
    document.querySelectorAll(".round-clock[data-deadline]:not(.time-called)").forEach(function (clock) {
      if (clock._offset === undefined) {
        clock._offset = Number(clock.getAttribute("data-server-now")) * 1000 - Date.now();
      }
      var deadline = Number(clock.getAttribute("data-deadline")) * 1000;
      var left = Math.max(0, Math.round((deadline - (Date.now() + clock._offset)) / 1000));
      var out = clock.querySelector(".clock-left");
      // The separator is written here: without JavaScript the line ends at the time.
      if (out) {
        out.textContent = " · " + (left
          ? interpolate(gettext("%(time)s left"), { time: Math.floor(left / 60) + ":" + two(left % 60) }, true)
          : gettext("time is up"));
      }
    });
  }
  var ticking = null;
  function start() {
    if (ticking === null && document.querySelector(".round-clock[data-deadline]")) {
      tick();
      ticking = window.setInterval(tick, 1000);
    }
  }
  start();
  // A round published after the page was drawn brings the first clock in a redrawn part (the wall, the
  // night page on a phone): it starts then.
  document.addEventListener("live:drawn", start);
})();
