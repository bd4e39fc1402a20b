"""Wall screens, profiles, hand history and exports (included at "" in ginleague/urls.py)."""

from django.urls import path

from scoring import profile_views, wall_views

app_name = "stats"

SEASON = "clubs/<slug:slug>/seasons/<int:pk>/"

urlpatterns = [
    path(f"{SEASON}wall/", wall_views.wall, name="wall"),
    path(f"{SEASON}wall/board/", wall_views.wall_board, name="wall_board"),
    path(f"{SEASON}wall/events/", wall_views.wall_events, name="wall_events"),
    path(f"{SEASON}standings.csv", profile_views.standings_csv, name="standings_csv"),
    path(f"{SEASON}games.json", profile_views.season_games_json, name="season_games_json"),
    path("clubs/<slug:slug>/hands/", profile_views.club_history, name="club_hands"),
    path("clubs/<slug:slug>/hands.csv", profile_views.club_hands_csv, name="club_hands_csv"),
    path("clubs/<slug:slug>/games.json", profile_views.club_games_json, name="club_games_json"),
    path("players/<int:pk>/profile/", profile_views.profile, name="profile"),
    path("players/<int:pk>/hands/", profile_views.player_history, name="player_hands"),
    path("players/<int:pk>/hands.csv", profile_views.player_hands_csv, name="player_hands_csv"),
    path("players/<int:pk>/games.json", profile_views.player_games_json, name="player_games_json"),
    path("games/<int:pk>/progress/", profile_views.game_progress_view, name="game_progress"),
]
