"""Profiles, player pages, hand history and exports (included at "" in ginleague/urls.py)."""

from django.urls import path

from scoring.stats import views

app_name = "stats"

SEASON = "clubs/<slug:slug>/seasons/<int:pk>/"

urlpatterns = [
    path(f"{SEASON}standings.csv", views.standings_csv, name="standings_csv"),
    path(f"{SEASON}games.json", views.season_games_json, name="season_games_json"),
    path("clubs/<slug:slug>/hands/", views.club_history, name="club_hands"),
    path("clubs/<slug:slug>/hands.csv", views.club_hands_csv, name="club_hands_csv"),
    path("clubs/<slug:slug>/games.json", views.club_games_json, name="club_games_json"),
    path("players/<int:pk>/", views.player_detail, name="player"),
    path("players/<int:pk>/profile/", views.profile, name="profile"),
    path("players/<int:pk>/hands/", views.player_history, name="player_hands"),
    path("players/<int:pk>/hands.csv", views.player_hands_csv, name="player_hands_csv"),
    path("players/<int:pk>/games.json", views.player_games_json, name="player_games_json"),
    path("games/<int:pk>/progress/", views.game_progress_view, name="game_progress"),
    path("games/<int:pk>/print/", views.game_print, name="game_print"),
]
