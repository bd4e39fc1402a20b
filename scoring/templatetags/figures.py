"""Template filters that show figures computed elsewhere (no arithmetic of their own beyond rounding)."""

from django import template
from django.utils.translation import gettext as _

register = template.Library()


@register.filter
def percent(fraction: float | None) -> str:
    """0.333 -> "33%"; None (nothing to divide by) -> an en dash."""
    if fraction is None:
        return "\u2013"
    # The sign's place and spacing are the language's ("33 %" in French and German).
    return _("%(number)s%%") % {"number": round(fraction * 100)}
