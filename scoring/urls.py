from django.urls import path

from scoring import pwa, views

urlpatterns = [
    path("", views.home, name="home"),
    path("todo/", views.todo, name="todo"),
    path("todo/count/", views.todo_count, name="todo_count"),
    path("games/new/", views.game_new, name="game_new"),
    path("games/new/rules/", views.rules_check, name="rules_check"),
    path("games/<int:pk>/", views.game_sheet, name="game"),
    path("games/<int:pk>/hands/", views.hand_submit, name="hand_submit"),
    path("games/<int:pk>/hands/preview/", views.hand_preview, name="hand_preview"),
    path("games/<int:pk>/hands/cards/", views.hand_cards, name="hand_cards"),
    path("games/<int:pk>/hands/undo/", views.hand_undo, name="hand_undo"),
    path("games/<int:pk>/boards/", views.board_submit, name="board_submit"),
    path("games/<int:pk>/boards/preview/", views.board_preview, name="board_preview"),
    path("games/<int:pk>/hands/<int:number>/edit/", views.hand_edit, name="hand_edit"),
    path("games/<int:pk>/hands/<int:number>/preview/", views.hand_edit_preview, name="hand_edit_preview"),
    path("games/<int:pk>/hands/<int:number>/remove/", views.hand_remove, name="hand_remove"),
    path("games/<int:pk>/history/", views.game_history, name="game_history"),
    path("games/<int:pk>/again/", views.play_again, name="play_again"),
    path("games/<int:pk>/time/", views.game_time, name="game_time"),
    path("players/merge/", views.player_merge, name="player_merge"),
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("waiting/", pwa.offline_waiting, name="offline_waiting"),
]
