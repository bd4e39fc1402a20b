"""Club and league pages and wall screens, included at "clubs/"."""

from django.urls import path

from scoring.league import night_views, views, wall

app_name = "league"

urlpatterns = [
    path("", views.club_list, name="clubs"),
    path("join/<str:token>/", views.invitation, name="invitation"),
    path("games/<int:pk>/", views.game_detail, name="game"),
    path("games/<int:pk>/confirm/", views.game_confirm, name="game_confirm"),
    path("games/<int:pk>/dispute/", views.game_dispute, name="game_dispute"),
    path("<slug:slug>/", views.club_detail, name="club"),
    path("<slug:slug>/members/", views.member_add, name="member_add"),
    path("<slug:slug>/members/<int:pk>/role/", views.member_role, name="member_role"),
    path("<slug:slug>/invitations/", views.invitation_create, name="invitation_create"),
    path("<slug:slug>/seasons/new/", views.season_new, name="season_new"),
    path("<slug:slug>/seasons/<int:pk>/", views.season_detail, name="season"),
    path("<slug:slug>/seasons/<int:pk>/standings/", views.season_standings, name="season_standings"),
    path("<slug:slug>/seasons/<int:pk>/wall/", wall.wall, name="wall"),
    path("<slug:slug>/seasons/<int:pk>/wall/board/", wall.wall_board, name="wall_board"),
    path("<slug:slug>/seasons/<int:pk>/wall/events/", wall.wall_events, name="wall_events"),
    path("<slug:slug>/seasons/<int:pk>/ranking/", views.season_ranking, name="season_ranking"),
    path("<slug:slug>/seasons/<int:pk>/print/", views.season_print, name="season_print"),
    path("<slug:slug>/seasons/<int:pk>/due/", views.season_due, name="season_due"),
    path("<slug:slug>/seasons/<int:pk>/close/", views.season_close, name="season_close"),
    path("<slug:slug>/seasons/<int:pk>/playoffs/", views.playoffs_start, name="playoffs_start"),
    path("<slug:slug>/seasons/<int:pk>/night/", night_views.night_page, name="night"),
    path("<slug:slug>/seasons/<int:pk>/night/check-in/", night_views.night_check_in, name="night_check_in"),
    path(
        "<slug:slug>/seasons/<int:pk>/night/check-in/last-night/",
        night_views.night_check_in_last,
        name="night_check_in_last",
    ),
    path("<slug:slug>/seasons/<int:pk>/night/pair/", night_views.night_pair, name="night_pair"),
    path("<slug:slug>/seasons/<int:pk>/night/swap/", night_views.night_swap, name="night_swap"),
    path("<slug:slug>/seasons/<int:pk>/night/publish/", night_views.night_publish, name="night_publish"),
    path("<slug:slug>/seasons/<int:pk>/night/time/", night_views.night_time, name="night_time"),
    path("<slug:slug>/seasons/<int:pk>/bracket/", views.bracket, name="bracket"),
    path("<slug:slug>/seasons/<int:pk>/bracket/board/", views.bracket_board, name="bracket_board"),
    path("<slug:slug>/seasons/<int:pk>/bracket/games/", views.tie_game_start, name="tie_game_start"),
    path("<slug:slug>/seasons/<int:pk>/games/", views.open_game_start, name="open_game_start"),
    path(
        "<slug:slug>/seasons/<int:pk>/fixtures/<int:fixture_pk>/start/",
        views.fixture_start,
        name="fixture_start",
    ),
]
