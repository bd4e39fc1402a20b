"""Who may change a game (pages and, if it likes, the API)."""

from __future__ import annotations


def can_edit_game(user, game) -> bool:
    """The game's creator, a user linked to one of its players, and staff.

    ``game`` should have player_one and player_two loaded (the selectors do),
    so this costs no query.
    """
    if user is None or not user.is_authenticated:
        return False
    if getattr(game, "season_id", None) is not None and game.league_status in ("confirmed", "disputed"):
        # League: once confirmed (or disputed) only the club's admins correct it (scoring/league.py).
        from scoring.league import can_correct_game

        return can_correct_game(user, game)
    if user.is_staff or user.is_superuser:
        return True
    if game.created_by_id is not None and game.created_by_id == user.pk:
        return True
    return user.pk in (game.player_one.user_id, game.player_two.user_id)
