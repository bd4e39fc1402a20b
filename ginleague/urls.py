from django.contrib import admin
from django.urls import include, path

from ginleague.i18n import javascript_catalog
from scoring.league import streams

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("scoring.api.urls")),
    path("clubs/", include("scoring.league.urls")),
    path("live/", streams.live_events, name="live_events"),
    path("jsi18n/<str:language>/", javascript_catalog, name="javascript_catalog"),
    path("", include("scoring.stats.urls")),
    path("", include("players.urls")),
    path("", include("scoring.urls")),
]

handler400 = "ginleague.errors.bad_request"
handler403 = "ginleague.errors.permission_denied"
handler404 = "ginleague.errors.page_not_found"
handler500 = "ginleague.errors.server_error"
