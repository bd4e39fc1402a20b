"""The site's URLs plus a page and an API endpoint that fail, to see the 500 answers (tests/test_hardening.py)."""

from django.core.exceptions import PermissionDenied
from django.urls import path

from ginleague.urls import handler400, handler403, handler404, handler500
from ginleague.urls import urlpatterns as site


def broken(request):
    raise RuntimeError("a bug, with a secret path /srv/ginleague/settings.py")


def refused(request):
    raise PermissionDenied("A disputed game is edited only by a club admin.")


urlpatterns = [path("broken/", broken), path("api/broken/", broken), path("refused/", refused), *site]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
