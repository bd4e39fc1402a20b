# The day a fixture's players were last e-mailed that it is due (manage.py send_reminders).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0007_factchange_player_merged"),
    ]

    operations = [
        migrations.AddField(
            model_name="fixture",
            name="reminded_on",
            field=models.DateField(blank=True, editable=False, null=True),
        ),
    ]
