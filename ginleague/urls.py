"""The site's addresses: each room's own, included here, and the error pages' views."""

from django.contrib import admin
from django.urls import include, path

from ginleague.i18n import javascript_catalog
from scoring.league import streams

# Tried in this order on every request, each include's patterns one after another: the API and the kitchen
# table's own pages (the games list, the scoresheet and its hand POSTs: most requests) first, the admin last.
# A path matches at most one of them (tests/test_urls.py), so the order changes only what finding it costs:
# the games list was the 36th pattern tried, about 80 us a request (issue 40).
urlpatterns = [
    path("api/", include("scoring.api.urls")),
    path("", include("scoring.urls")),
    path("clubs/", include("scoring.league.urls")),
    path("live/", streams.live_events, name="live_events"),
    path("", include("scoring.stats.urls")),
    path("", include("players.urls")),
    path("jsi18n/<str:language>/", javascript_catalog, name="javascript_catalog"),
    path("admin/", admin.site.urls),
]

handler400 = "ginleague.errors.bad_request"
handler403 = "ginleague.errors.permission_denied"
handler404 = "ginleague.errors.page_not_found"
handler500 = "ginleague.errors.server_error"
