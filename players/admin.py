from django.contrib import admin

from players.models import Club, Invitation, LanguageChoice, Membership, NotificationPreference, Player, SiteSettings


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "created_at"]
    search_fields = ["name"]
    raw_id_fields = ["user", "created_by"]


@admin.register(SiteSettings)
class SiteSettingsAdmin(admin.ModelAdmin):
    list_display = ["__str__", "signup_open", "updated_at"]


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["player"]


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "is_public", "created_at"]
    list_filter = ["is_public"]
    search_fields = ["name"]
    raw_id_fields = ["created_by"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["player", "club", "role"]
    list_filter = ["role"]
    list_select_related = ["player", "club"]
    search_fields = ["player__name", "club__name"]
    raw_id_fields = ["player", "club"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["club", "role", "player", "created_at", "accepted_by"]
    list_select_related = ["club", "player", "accepted_by"]
    raw_id_fields = ["club", "player", "created_by", "accepted_by"]


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(admin.ModelAdmin):
    list_display = ["user", "email"]
    list_select_related = ["user"]
    raw_id_fields = ["user"]


@admin.register(LanguageChoice)
class LanguageChoiceAdmin(admin.ModelAdmin):
    list_display = ["user", "language"]
    list_select_related = ["user"]
    raw_id_fields = ["user"]
