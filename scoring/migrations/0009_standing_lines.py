"""The standings lines (two per confirmed, finished league game), filled for the games already stored."""

import django.db.models.deletion
from django.db import migrations, models


def fill_lines(apps, schema_editor):
    from scoring.services import standing_lines_rebuild

    standing_lines_rebuild(apps=apps, totals=False)  # the season totals come in 0011


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0004_email_opt_out'),
        ('scoring', '0008_fixture_reminded_on'),
    ]

    operations = [
        migrations.CreateModel(
            name='StandingLine',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('fixture', models.BooleanField()),
                ('won', models.PositiveSmallIntegerField()),
                ('lost', models.PositiveSmallIntegerField()),
                ('drawn', models.PositiveSmallIntegerField()),
                ('net', models.IntegerField()),
                ('hands_won', models.PositiveIntegerField()),
                ('gins', models.PositiveIntegerField()),
                ('undercuts_given', models.PositiveIntegerField()),
                ('undercuts_received', models.PositiveIntegerField()),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='standing_lines', to='scoring.game')),
                ('opponent', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='players.player')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='players.player')),
                ('season', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='scoring.season')),
            ],
            options={
                'indexes': [models.Index(fields=['season', 'player'], name='scoring_sta_season__3202bc_idx')],
                'constraints': [models.UniqueConstraint(fields=('game', 'player'), name='standingline_player_once_per_game'), models.CheckConstraint(condition=models.Q(('player', models.F('opponent')), _negated=True), name='standingline_two_different_players')],
            },
        ),
        migrations.RunPython(fill_lines, migrations.RunPython.noop),
    ]
