"""Game.change_count: the count of committed changes live pages' versions are made of (issue #39).

The season's version sums it over the season's games; the index that served the version's
aggregates index-only gets the column too (plain SQL, valid on PostgreSQL and SQLite).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0018_fact_change_words"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="change_count",
            field=models.PositiveBigIntegerField(default=0, editable=False),
        ),
        migrations.RunSQL(
            sql=[
                "DROP INDEX IF EXISTS game_season_version",
                "CREATE INDEX IF NOT EXISTS game_season_version ON scoring_game "
                "(season_id, league_status, updated_at, confirmed_at, change_count)",
            ],
            reverse_sql=[
                "DROP INDEX IF EXISTS game_season_version",
                "CREATE INDEX IF NOT EXISTS game_season_version ON scoring_game "
                "(season_id, league_status, updated_at, confirmed_at)",
            ],
        ),
    ]
