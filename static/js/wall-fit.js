/* The wall screen fits its screen: nobody scrolls a TV across the room. The board's type is made as large
 * as lets every standings row, game in play and latest result show at once (searched between a floor
 * still readable from across the room, 1/60 of the screen's shorter side, and 1/24 of its height). A season
 * too large even at the floor pages through its standings by itself, one screenful every PAGE_SECONDS,
 * saying "page 1 of 3". Fitted again when the screen changes size and whenever the live board is redrawn
 * (wall.js's "live:drawn"). Without JavaScript the wall is a plain page that scrolls.
 *
 * <body> says what it did, for people and tests: data-fitted (the type's size in px), data-pages and
 * data-page (from 1) when it pages. */
(function () {
  "use strict";
  var body = document.body;
  if (!body || !body.classList.contains("wall") || !window.requestAnimationFrame) {
    return;
  }
  var PAGE_SECONDS = 12;
  var page = 0;       // the standings page shown, from 0
  var perPage = 0;    // rows per page when paging (0: every row fits)
  var pageTimer = null;

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#wall-board table.wall-table tbody tr[data-player]"));
  }
  function fits() {
    var root = document.documentElement;
    return root.scrollHeight <= window.innerHeight + 1 && root.scrollWidth <= window.innerWidth + 1;
  }
  function floor() {
    return Math.max(12, Math.floor(Math.min(window.innerHeight, window.innerWidth) / 60));
  }

  // Show rows [first, first + count) of the standings (every row when count is 0).
  function showRows(first, count) {
    rows().forEach(function (row, index) {
      row.hidden = count > 0 && (index < first || index >= first + count);
    });
  }

  function pageLine(pages) {
    var line = document.getElementById("wall-page");
    var note = document.querySelector("#wall-board .wall-note");
    if (pages <= 1) {
      if (line) { line.remove(); }
      return;
    }
    if (!line && note) {
      line = document.createElement("span");
      line.id = "wall-page";
      line.className = "wall-page";
      note.insertBefore(line, note.firstChild);
    }
    if (line) {
      line.textContent = interpolate(gettext("Page %(page)s of %(pages)s"), { page: page + 1, pages: pages }, true) + " · ";
    }
  }

  function showPage() {
    var count = rows().length;
    var pages = perPage ? Math.ceil(count / perPage) : 1;
    if (page >= pages) { page = 0; }
    showRows(page * perPage, perPage);
    pageLine(pages);
    if (pages > 1) {
      body.setAttribute("data-pages", String(pages));
      body.setAttribute("data-page", String(page + 1));
    } else {
      body.removeAttribute("data-pages");
      body.removeAttribute("data-page");
    }
  }

  function fit() {
    body.style.fontSize = "";
    showRows(0, 0);
    pageLine(0);
    // From the floor up to as large as the screen's height allows (a TV on its side has room to spare).
    var high = Math.max(parseFloat(window.getComputedStyle(body).fontSize), window.innerHeight / 24);
    var low = Math.min(floor(), high);
    body.style.fontSize = high + "px";
    if (!fits()) {
      body.style.fontSize = low + "px";
      if (fits()) {
        while (high - low > 0.5) { // the largest size that fits, to half a pixel
          var middle = (low + high) / 2;
          body.style.fontSize = middle + "px";
          if (fits()) { low = middle; } else { high = middle; }
        }
      }
      high = low;
      body.style.fontSize = high + "px";
    }
    var size = high;
    perPage = 0;
    if (!fits()) {
      // Too many rows even at the floor: as many as fit make a page (the line saying which page included).
      var all = rows().length;
      pageLine(2);
      var count = all - 1;
      while (count > 1) {
        showRows(0, count);
        if (fits()) { break; }
        count -= 1;
      }
      // Pages of even length: 40 rows where 37 fit make two pages of 20, not 37 and 3.
      perPage = Math.ceil(all / Math.ceil(all / Math.max(1, count)));
    }
    showPage();
    body.setAttribute("data-fitted", String(Math.round(size * 10) / 10));
    // A board redrawn every few seconds (a busy night) must not hold the page: the clock runs on.
    if (perPage && pageTimer === null) {
      pageTimer = window.setInterval(turn, PAGE_SECONDS * 1000);
    } else if (!perPage && pageTimer !== null) {
      window.clearInterval(pageTimer);
      pageTimer = null;
    }
  }

  function turn() {
    page += 1;
    showPage();
  }

  var queued = false;
  function fitSoon() {
    if (queued) { return; }
    queued = true;
    window.requestAnimationFrame(function () {
      queued = false;
      fit();
    });
  }

  window.addEventListener("resize", fitSoon);
  document.addEventListener("live:drawn", fitSoon);
  if (document.fonts && document.fonts.ready) { document.fonts.ready.then(fitSoon); }
  fitSoon();
})();
