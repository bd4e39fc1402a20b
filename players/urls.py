from django.contrib.auth.views import LogoutView
from django.urls import path

from players import views

urlpatterns = [
    path("setup/", views.setup, name="setup"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("signup/", views.signup, name="signup"),
    path("settings/", views.site_settings, name="site_settings"),
    path("account/", views.account, name="account"),
    path("language/", views.language_choose, name="language_choose"),
    path("players/", views.player_list, name="player_list"),
]
