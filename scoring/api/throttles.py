"""API rate limits (DRF throttling): anonymous callers by address, signed-in callers by account, token creation apart.

The rates are REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] (README: "Rate limits"),
read on every request rather than once at import as DRF's own classes do, so
a settings override (or a test) takes effect at once. A scope without a rate
is not limited. The token scope's class lives in players.tokens: the account
page's token form counts against the same limit.
"""

from rest_framework import throttling
from rest_framework.settings import api_settings

from players.tokens import TokenThrottle

__all__ = ["AnonThrottle", "TokenThrottle", "UserThrottle"]


class CurrentRates:
    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class AnonThrottle(CurrentRates, throttling.AnonRateThrottle):
    """Anonymous API use, per client address."""


class UserThrottle(CurrentRates, throttling.UserRateThrottle):
    """Signed-in API use, per account."""
