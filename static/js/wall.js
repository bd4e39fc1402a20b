/* Wall screen (and knockout bracket): listen to the season's Server-Sent Events and re-fetch the board on every change.
 * Without JavaScript the page is a plain page with a Reload link. */
(function () {
  "use strict";
  // The wall screen puts the URLs on <body>; other live pages (the knockout bracket) on their board's section.
  var root = document.querySelector("[data-wall-events]") || document.body;
  var eventsUrl = root.getAttribute("data-wall-events");
  var boardUrl = root.getAttribute("data-wall-board");
  var status = document.getElementById("wall-status");
  if (!eventsUrl || !boardUrl || !window.EventSource || !window.fetch) {
    return;
  }
  var source = null;
  var retryTimer = null;
  var fetching = false;
  var again = false;

  function setStatus(text, live) {
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("live", !!live);
  }

  function shownVersion() {
    var board = document.getElementById("wall-board");
    return board ? board.getAttribute("data-version") : "";
  }

  function refresh() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    fetch(boardUrl, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error("board answered " + response.status);
        return response.text();
      })
      .then(function (html) {
        var template = document.createElement("template");
        template.innerHTML = html;
        var fresh = template.content.getElementById("wall-board");
        var board = document.getElementById("wall-board");
        if (fresh && board) {
          board.replaceWith(fresh);
          var now = new Date();
          setStatus("Live · updated " + now.toLocaleTimeString(), true);
        }
      })
      .catch(function () {
        setStatus("Could not update: retrying", false);
        again = true;
      })
      .finally(function () {
        fetching = false;
        if (again) {
          again = false;
          window.setTimeout(refresh, 300);
        }
      });
  }

  function connect() {
    window.clearTimeout(retryTimer);
    if (source) source.close();
    source = new EventSource(eventsUrl);
    source.addEventListener("ready", function (event) {
      setStatus("Live", true);
      if (event.data !== shownVersion()) refresh(); // missed something while (re)connecting
    });
    source.addEventListener("change", function (event) {
      if (event.data !== shownVersion()) refresh();
    });
    source.addEventListener("bye", function () {
      connect(); // the server ends each stream after a few minutes: open the next one at once
    });
    source.addEventListener("error", function () {
      setStatus("Reconnecting…", false);
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (e.g. the server answered an error): try again ourselves.
        retryTimer = window.setTimeout(connect, 3000);
      }
    });
  }

  connect();
})();
