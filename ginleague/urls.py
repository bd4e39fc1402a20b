from django.contrib import admin
from django.urls import path

from scoring import views as scoring_views

urlpatterns = [
    path("", scoring_views.home, name="home"),
    path("admin/", admin.site.urls),
]
