"""Sign-in lockout (django-axes): what is counted, what a success clears, and the page a locked-out sign-in gets.

Failures are counted per account (from any address, and from each address), and
per address across all accounts with a much higher limit, so a club on one
Wi-Fi address is not locked out by a few typos. A successful sign-in clears
only that account's failures (``AXES_LOCKOUT_PARAMETERS`` decides what a
reset deletes): signing in as oneself never clears guesses at someone else.
"""

from math import ceil

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.shortcuts import render


class AccountLockoutHandler(AxesDatabaseHandler):
    """axes' database handler, plus a lock on an address once it reaches ``AXES_ADDRESS_FAILURE_LIMIT``.

    axes compares one count with one limit: the account's count (its parameters) with
    ``AXES_FAILURE_LIMIT``. An address at its own limit counts as an account at the limit.
    """

    def get_failures(self, request, credentials=None) -> int:
        account_failures = super().get_failures(request, credentials)
        address = getattr(request, "axes_ip_address", None)
        if not address:
            return account_failures
        attempts = AccessAttempt.objects.filter(ip_address=address)
        if settings.AXES_COOLOFF_TIME is not None:
            attempts = attempts.filter(attempt_time__gte=get_cool_off_threshold(request))
        address_failures = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
        if address_failures >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            return max(account_failures, get_failure_limit(request, credentials))
        return account_failures


def lockout_response(request, original_response=None, credentials=None):
    minutes = ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "address_failure_limit": settings.AXES_ADDRESS_FAILURE_LIMIT,
        "minutes": minutes,
    }
    return render(request, "registration/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
