"""Site settings: a translated name (#31)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0005_invitation_email"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="sitesettings",
            options={"verbose_name": "site settings", "verbose_name_plural": "site settings"},
        ),
    ]
