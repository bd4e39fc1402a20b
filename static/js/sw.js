/*
 * GinLeague's service worker (issue 14). Served by scoring/pwa.py at /sw.js, so its scope is the
 * whole site; the view puts `self.GINLEAGUE = {version, shell, offline, hashed}` above this file.
 *
 * - The app shell (CSS, JS with the offline scorer, icons, the waiting page) is cached on install,
 *   from the browser's own copies where they are sure to be current (hashed names).
 * - Pages are network first: each page seen online is kept (the scoresheet of every game opened
 *   on this phone), and served from the cache when the network is down.
 * - A game's API answer (GET /api/games/<id>/) is kept the same way, and handed back without a network
 *   marked "X-GinLeague-Kept: 1": the offline app takes it for no answer, never for the server's sheet.
 * - The JavaScript catalog (/jsi18n/<language>/?v=..., the script strings in the page's language) too: the
 *   chosen language's is in the shell, and each one a page loads is kept, so offline pages keep their language.
 * - Static files come from the cache at once: a hashed name (`make run`, production) is never fetched again,
 *   an unhashed one (`make dev`) is refreshed behind it (stale-while-revalidate).
 * Writes (POST, PUT, PATCH, DELETE) are never touched: the offline app (static/js/offline/) queues them.
 */
/* global self, caches, fetch, Response, URL */
(function () {
  "use strict";
  var CONFIG = self.GINLEAGUE || { version: "dev", shell: [], offline: "/waiting/", hashed: false };
  var SHELL = "ginleague-shell-" + CONFIG.version;
  var PAGES = "ginleague-pages";  // kept across releases: the last-seen sheets are the phone's, not the release's

  self.addEventListener("install", function (event) {
    event.waitUntil(caches.open(SHELL).then(function (cache) {
      return Promise.all(CONFIG.shell.map(function (url) {
        // A hashed static file never changes: the browser's copy (the page has just fetched most of
        // them) is the right one. Anything else is checked with the server (304 when unchanged).
        var mode = CONFIG.hashed && isStatic(new URL(url, self.location.href)) ? "default" : "no-cache";
        return cache.add(new Request(url, { cache: mode })).catch(function () { return null; });
      }));
    }).then(function () { return self.skipWaiting(); }));
  });

  self.addEventListener("activate", function (event) {
    event.waitUntil(caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("ginleague-shell-") === 0 && name !== SHELL;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); }));
  });

  function isStatic(url) { return url.pathname.indexOf("/static/") === 0; }
  function isGameApi(url) { return /^\/api\/games\/\d+\/$/.test(url.pathname); }
  function isCatalog(url) { return url.pathname.indexOf("/jsi18n/") === 0; }
  function isKeptPage(request, url) {
    if (request.mode !== "navigate") { return false; }
    // Not the sign-in, admin or export pages: they are no use offline.
    return !/^\/(admin|login|logout|api)\//.test(url.pathname);
  }

  // A game's API answer this worker kept, handed back when the network failed: marked as a copy, so the
  // offline app never takes it for the server's word (a sync reading it as the server's sheet renumbered a
  // hand from the hands it held when it was kept).
  function markedKept(response) {
    var headers = new Headers(response.headers);
    headers.set("X-GinLeague-Kept", "1");
    return response.blob().then(function (body) {
      return new Response(body, { status: response.status, statusText: response.statusText, headers: headers });
    });
  }

  function networkFirst(event, keep) {
    var request = event.request;
    return fetch(request).then(function (response) {
      var html = (response.headers.get("Content-Type") || "").indexOf("text/html") === 0;
      if (response.ok && response.type === "basic" && !response.redirected && (html || request.mode !== "navigate")) {
        var copy = response.clone();
        // Kept while the page already has its answer; the worker is not stopped before the copy is written.
        event.waitUntil(caches.open(PAGES).then(function (cache) { return cache.put(keep || request, copy); }));
      }
      return response;
    }).catch(function () {
      // The copy last seen by this user first (the shell's copy of the waiting page may predate sign-in).
      return caches.open(PAGES).then(function (cache) { return cache.match(keep || request); }).then(function (mine) {
        return mine || caches.match(keep || request);
      }).then(function (hit) {
        if (hit) { return isGameApi(new URL(request.url)) ? markedKept(hit) : hit; }
        if (request.mode === "navigate") {
          return caches.match(CONFIG.offline).then(function (page) {
            return page || new Response("You are offline and this page was not opened on this phone before.",
              { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
          });
        }
        return Response.error();
      });
    });
  }

  // The kept copy at once. A hashed name (`make run`, production) never changes: its copy is all there is to
  // it, and fetching it again at every page (then writing it to the cache again) only cost the phone time.
  // An unhashed one (`make dev`, the tests) is refreshed behind it, up to date from the next load on.
  function keptStatic(event) {
    var request = event.request;
    function fetched() {
      return fetch(request).then(function (response) {
        if (response.ok) {
          var copy = response.clone();
          return caches.open(SHELL).then(function (cache) { return cache.put(request, copy); }).then(function () { return response; });
        }
        return response;
      });
    }
    var fresh = CONFIG.hashed ? null : fetched();
    return caches.match(request).then(function (hit) {
      if (hit && fresh) { event.waitUntil(fresh.catch(function () { return null; })); }
      return hit || fresh || fetched();
    });
  }

  self.addEventListener("fetch", function (event) {
    var request = event.request;
    if (request.method !== "GET") { return; }
    var url = new URL(request.url);
    if (url.origin !== self.location.origin) { return; }
    if (isStatic(url)) { event.respondWith(keptStatic(event)); return; }
    if (isGameApi(url)) { event.respondWith(networkFirst(event, url.origin + url.pathname)); return; }
    if (isCatalog(url)) { event.respondWith(networkFirst(event, url.href)); return; }
    if (isKeptPage(request, url)) {
      // htmx requests are fragments: never stand in for a whole page.
      if (request.headers.get("HX-Request")) { return; }
      event.respondWith(networkFirst(event, url.origin + url.pathname + url.search));
    }
  });

  // A page asks to keep its own scoresheet (opened before the worker took control).
  self.addEventListener("message", function (event) {
    var data = event.data || {};
    if (data.type === "keep" && data.url) {
      caches.open(PAGES).then(function (cache) { return cache.add(data.url); }).catch(function () { return null; });
    }
  });
})();
