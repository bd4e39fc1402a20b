"""The API under /api/.

Extension point for the league endpoints (clubs, seasons, fixtures,
standings, ratings): register their viewsets on ``router`` below, e.g.
``router.register("clubs", ClubViewSet, basename="club")``, or add their
paths to ``urlpatterns``; the schema and docs pick them up automatically.
"""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import SimpleRouter

from scoring.api import games as views
from scoring.api import league as league_views

app_name = "api"

router = SimpleRouter()
router.register("players", views.PlayerViewSet, basename="player")
router.register("games", views.GameViewSet, basename="game")
router.register("clubs", league_views.ClubViewSet, basename="club")
router.register("seasons", league_views.SeasonViewSet, basename="season")
router.register("fixtures", league_views.FixtureViewSet, basename="fixture")

urlpatterns = [
    path("games/<int:game_pk>/hands/", views.HandListView.as_view(), name="hand-list"),
    path("games/<int:game_pk>/hands/<int:pk>/", views.HandDetailView.as_view(), name="hand-detail"),
    path("games/<int:game_pk>/hands/<int:pk>/set-aside/", views.HandSetAsideView.as_view(), name="hand-set-aside"),
    path("token/", views.TokenView.as_view(), name="token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", views.SwaggerDocsView.as_view(url_name="api:schema"), name="docs"),
    *router.urls,
    # Keep last: anything else under /api/ is a JSON 404.
    re_path(r"^[\s\S]*$", views.not_found, name="not-found"),
]
