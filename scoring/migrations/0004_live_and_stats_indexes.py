"""Indexes for the wall screen, ratings and profiles at club scale (see bench/bench_club_scale.py).

Plain SQL (valid on PostgreSQL and SQLite) so the models, owned elsewhere,
need not change: the indexes serve queries, they change no model state.
"""

from django.db import migrations

INDEXES = {
    # The season's version (count, latest change, latest confirmation) and the confirmed one: index-only.
    "game_season_version": "scoring_game (season_id, league_status, updated_at, confirmed_at)",
    # The wall's "playing now" and "latest results".
    "game_season_playing": "scoring_game (season_id, over, updated_at DESC)",
    "game_season_finished": "scoring_game (season_id, over, finished_at DESC)",
    # Ratings: confirmed results in the order they finished.
    "game_confirmed_order": "scoring_game (league_status, finished_at, id)",
}


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0003_league"),
    ]

    operations = [
        migrations.RunSQL(
            sql=f"CREATE INDEX IF NOT EXISTS {name} ON {target}",
            reverse_sql=f"DROP INDEX IF EXISTS {name}",
        )
        for name, target in INDEXES.items()
    ]
