"""The season totals of the standings lines (one per player and season), filled for the games stored."""

import django.db.models.deletion
from django.db import migrations, models


def fill_totals(apps, schema_editor):
    from scoring.services import standing_lines_rebuild

    standing_lines_rebuild(apps=apps)  # the lines again, then every season's totals from them


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0004_email_opt_out'),
        ('scoring', '0010_factchange_version_set_aside'),
    ]

    operations = [
        migrations.CreateModel(
            name='StandingTotal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('fixture', models.BooleanField()),
                ('played', models.PositiveIntegerField()),
                ('won', models.PositiveIntegerField()),
                ('lost', models.PositiveIntegerField()),
                ('drawn', models.PositiveIntegerField()),
                ('net', models.IntegerField()),
                ('hands_won', models.PositiveIntegerField()),
                ('gins', models.PositiveIntegerField()),
                ('undercuts_given', models.PositiveIntegerField()),
                ('undercuts_received', models.PositiveIntegerField()),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='players.player')),
                ('season', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='scoring.season')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('season', 'player', 'fixture'), name='standingtotal_once_per_player')],
            },
        ),
        migrations.RunPython(fill_totals, migrations.RunPython.noop),
    ]
