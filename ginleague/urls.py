from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("scoring.api.urls")),
    path("clubs/", include("scoring.league.urls")),
    path("", include("scoring.stats.urls")),
    path("", include("players.urls")),
    path("", include("scoring.urls")),
]
