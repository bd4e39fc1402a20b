"""The answer to a locked-out sign-in (django-axes calls it): a page that says why, for how long, and who can help."""

from math import ceil

from django.conf import settings
from django.shortcuts import render


def lockout_response(request, original_response=None, credentials=None):
    minutes = ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "minutes": minutes}
    return render(request, "registration/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
