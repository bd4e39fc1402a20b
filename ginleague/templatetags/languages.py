"""``{% javascript_catalog_url %}``: the JavaScript catalog of the page's language (ginleague/i18n.py)."""

from django import template

from ginleague.i18n import catalog_url

register = template.Library()


@register.simple_tag
def javascript_catalog_url() -> str:
    return catalog_url()
