from django.contrib import admin

from players.models import Player, SiteSettings


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "created_at"]
    search_fields = ["name"]
    raw_id_fields = ["user", "created_by"]


@admin.register(SiteSettings)
class SiteSettingsAdmin(admin.ModelAdmin):
    list_display = ["__str__", "signup_open", "updated_at"]
