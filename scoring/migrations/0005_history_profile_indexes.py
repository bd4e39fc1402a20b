"""Indexes for the season page, profiles and hand history at club scale (see bench/bench_club_scale.py).

Plain SQL (valid on PostgreSQL and SQLite), like 0004, so the models need not change.
"""

from django.db import migrations

INDEXES = {
    # The season page's provisional results: finished games not confirmed (a handful among thousands).
    "game_season_provisional": "scoring_game (season_id, finished_at DESC) WHERE \"over\" AND league_status <> 'confirmed'",
    # A profile's biggest hand: the player's won hands, most points first.
    "hand_winner_points": "scoring_hand (winner_id, points DESC)",
}


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0004_live_and_stats_indexes"),
    ]

    operations = [
        migrations.RunSQL(
            sql=f"CREATE INDEX IF NOT EXISTS {name} ON {target}",
            reverse_sql=f"DROP INDEX IF EXISTS {name}",
        )
        for name, target in INDEXES.items()
    ]
