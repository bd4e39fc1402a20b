"""Template filters that show figures computed elsewhere (no arithmetic of their own beyond rounding)."""

from django import template

register = template.Library()


@register.filter
def percent(fraction: float | None) -> str:
    """0.333 -> "33%"; None (nothing to divide by) -> an en dash."""
    if fraction is None:
        return "\u2013"
    return f"{round(fraction * 100)}%"
