"""Dates, times and numbers in each language's own format (issue 31); English looks as it always has."""

import datetime

import pytest
from django.template import Context, Template
from django.utils import translation

WHEN = datetime.datetime(2026, 3, 5, 19, 30)

SHOWN = Template(
    "{{ when|date:'DATE_FORMAT' }}|{{ when|date:'DATETIME_FORMAT' }}|{{ when|date:'MONTH_DAY_FORMAT' }}"
    "|{{ when|time:'TIME_FORMAT' }}|{{ when|date:'SHORT_DATE_FORMAT' }}|{{ number }}"
)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en-gb", "5 Mar 2026|5 Mar 2026, 19:30|5 Mar|19:30|05/03/2026|2.5"),
        ("de", "5. März 2026|5. März 2026 19:30|5. März|19:30|05.03.2026|2,5"),
        ("es", "5 de marzo de 2026|5 de marzo de 2026 a las 19:30|5 de marzo|19:30|05/03/2026|2,5"),
        ("fr", "5 mars 2026|5 mars 2026 19:30|5 mars|19:30|05/03/2026|2,5"),
        ("pt-br", "5 de março de 2026|5 de março de 2026 às 19:30|5 de março|19:30|05/03/2026|2,5"),
    ],
)
def test_each_language_shows_dates_times_and_numbers_its_own_way(language, expected):
    with translation.override(language):
        assert SHOWN.render(Context({"when": WHEN, "number": 2.5})) == expected
