"""An invitation keeps the address it was e-mailed to (issue 29): the account that accepts it gets it."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0004_email_opt_out'),
    ]

    operations = [
        migrations.AddField(
            model_name='invitation',
            name='email',
            field=models.EmailField(blank=True, default='', max_length=254),
        ),
    ]
