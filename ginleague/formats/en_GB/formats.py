"""British English as GinLeague has always shown it: "5 Mar 2026", "5 Mar 2026, 19:30", 24-hour times.

Django's own en_GB formats spell the month in full on some and use a 12-hour clock ("7:30 p.m.");
only the formats named here differ from them. The other languages use Django's formats as they are.
"""

DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i"
MONTH_DAY_FORMAT = "j M"
TIME_FORMAT = "H:i"
SHORT_DATE_FORMAT = "d/m/Y"
