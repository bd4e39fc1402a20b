"""Rule sets: a preset name plus overrides, validated (pure Python, no Django).

The presets and field meanings are those of the rule book
(docs/rules.md). A resolved ``RuleSet`` holds every value, so a game
stores it whole and a later change to a preset never rewrites history.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from scoring.engine.text import _, gettext_noop

SHUTOUT_MODES = ("none", "add", "double_hands", "double_total")
OKLAHOMA_ACE_MODES = ("gin_only", "one")
NEXT_DEALER_MODES = ("loser", "winner", "alternate")
PARTNER_OPPONENTS_MODES = ("fixed", "alternate")
HOLLYWOOD_GAMES = 3
# Presets played by four players in two sides (docs/rules.md, "Partnership gin"), and the rules only they read.
PARTNERSHIP_PRESETS = ("partnership",)
PARTNERSHIP_RULES = ("partner_opponents",)
# Sane ceilings keep a typo (target 10000000) from making a game unplayable.
MAX_BONUS = 10_000


class RuleError(ValueError):
    """A rule set that cannot be used; ``field`` names the offending key. ``detail``, when given, says
    the same after the rule's label on a form (as ``score.HandError.detail``)."""

    def __init__(self, field: str, message: str, detail: str | None = None):
        super().__init__(message)
        self.field = field
        self.message = message
        self.detail = detail


@dataclass(frozen=True)
class RuleSet:
    preset: str = "standard"
    knock_limit: int = 10
    gin_bonus: int = 25
    big_gin_bonus: int | None = 31
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    target: int = 100
    game_bonus: int = 100
    # The game bonus of a game ended by time (docs/rules.md, "A game ended by time"); unless set, game_bonus.
    timed_game_bonus: int = 100
    box_bonus: int = 25
    line_bonus: int | None = None
    line_bonus_margin: int = 50
    shutout_mode: str = "add"
    shutout_bonus: int = 100
    oklahoma: bool = False
    oklahoma_ace: str = "gin_only"
    spade_double: bool = False
    spade_double_boxes: bool = False
    hollywood: bool = False
    next_dealer: str = "loser"
    # Partnership gin only: who plays whom on the two boards of a deal.
    partner_opponents: str = "fixed"

    @property
    def partnership(self) -> bool:
        """Four players in two sides, two boards a deal (docs/rules.md, "Partnership gin")."""
        return self.preset in PARTNERSHIP_PRESETS

    @property
    def games_per_session(self) -> int:
        return HOLLYWOOD_GAMES if self.hollywood else 1

    @property
    def big_gin_allowed(self) -> bool:
        return self.big_gin_bonus is not None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def overrides(self) -> dict[str, Any]:
        """The fields that differ from the preset, as a rule-set spec."""
        base = PRESETS[self.preset]
        spec: dict[str, Any] = {"preset": self.preset}
        for field in fields(self):
            value = getattr(self, field.name)
            # timed_game_bonus follows game_bonus unless set, so it is an override only where it differs.
            default = self.game_bonus if field.name == "timed_game_bonus" else getattr(base, field.name)
            if field.name != "preset" and value != default:
                spec[field.name] = value
        return spec

    def describe(self) -> list[tuple[str, str]]:
        """Every rule in plain words, e.g. ("Undercut bonus", "25"); the partnership rules only for a partnership."""
        return [
            (_(FIELD_LABELS[name]), _describe_value(self, name))
            for name in FIELD_LABELS
            if self.partnership or name not in PARTNERSHIP_RULES
        ]

    def value_words(self, name: str) -> str:
        """Rule ``name``'s value in plain words, in the active language, e.g. "loser of the hand"."""
        return _describe_value(self, name)

    def describe_overrides(self) -> list[tuple[str, str]]:
        return [(_(FIELD_LABELS[name]), _describe_value(self, name)) for name in self.overrides() if name != "preset"]


_STANDARD = RuleSet()

PRESETS: dict[str, RuleSet] = {
    "standard": _STANDARD,
    "classic": replace(
        _STANDARD,
        preset="classic",
        gin_bonus=20,
        big_gin_bonus=None,
        undercut_bonus=10,
        box_bonus=20,
    ),
    "lets_play": replace(
        _STANDARD,
        preset="lets_play",
        big_gin_bonus=25,
        box_bonus=20,
        line_bonus=50,
        line_bonus_margin=50,
        shutout_mode="none",
    ),
    "oklahoma": replace(
        _STANDARD,
        preset="oklahoma",
        target=150,
        oklahoma=True,
        spade_double=True,
        spade_double_boxes=False,
    ),
    "straight": replace(_STANDARD, preset="straight", knock_limit=0),
    "hollywood": replace(_STANDARD, preset="hollywood", hollywood=True),
    # Bicycle's partnership gin: the standard hand, a game to 125 points of a side.
    "partnership": replace(_STANDARD, preset="partnership", target=125),
}

# The labels below are English, marked for translation: whoever shows one passes it through gettext
# (``preset_label``, ``field_label`` and ``rule_words`` do), in the language of the page at hand.
PRESET_LABELS = {
    "standard": gettext_noop("Standard (modern Hoyle)"),
    "classic": gettext_noop("Classic (pagat / Bicycle)"),
    "lets_play": gettext_noop("Let's Play house rules"),
    "oklahoma": gettext_noop("Oklahoma"),
    "straight": gettext_noop("Straight gin (gin only)"),
    "hollywood": gettext_noop("Hollywood (three games at once)"),
    "partnership": gettext_noop("Partnership (four players, two sides)"),
}

# What a game of two players is started with (the new-game and season forms offer these).
TWO_PLAYER_PRESETS = tuple(name for name in PRESET_LABELS if name not in PARTNERSHIP_PRESETS)

FIELD_LABELS = {
    "knock_limit": gettext_noop("Knock limit"),
    "gin_bonus": gettext_noop("Gin bonus"),
    "big_gin_bonus": gettext_noop("Big gin bonus"),
    "undercut_bonus": gettext_noop("Undercut bonus"),
    "undercut_on_tie": gettext_noop("A tie is an undercut"),
    "target": gettext_noop("Game to"),
    "game_bonus": gettext_noop("Game bonus"),
    "timed_game_bonus": gettext_noop("Game bonus when time is called"),
    "box_bonus": gettext_noop("Box bonus (per hand won)"),
    "line_bonus": gettext_noop("Line bonus for a big win"),
    "line_bonus_margin": gettext_noop("Big win means winning by at least"),
    "shutout_mode": gettext_noop("Shutout"),
    "shutout_bonus": gettext_noop("Shutout bonus"),
    "oklahoma": gettext_noop("Oklahoma (upcard sets the knock limit)"),
    "oklahoma_ace": gettext_noop("Oklahoma ace upcard"),
    "spade_double": gettext_noop("Spade upcard doubles the hand"),
    "spade_double_boxes": gettext_noop("Spade-doubled hand counts two boxes"),
    "hollywood": gettext_noop("Hollywood (three games at once)"),
    "next_dealer": gettext_noop("Next dealer"),
    "partner_opponents": gettext_noop("Who plays whom"),
}

_CHOICE_WORDS = {
    "shutout_mode": {
        "none": gettext_noop("no bonus"),
        "add": gettext_noop("adds the shutout bonus"),
        "double_hands": gettext_noop("doubles the winner's hand points"),
        "double_total": gettext_noop("doubles the winner's total"),
    },
    "oklahoma_ace": {"gin_only": gettext_noop("gin only"), "one": gettext_noop("knock with 1 or less")},
    "next_dealer": {
        "loser": gettext_noop("loser of the hand"),
        "winner": gettext_noop("winner of the hand"),
        "alternate": gettext_noop("players take turns"),
    },
    "partner_opponents": {
        "fixed": gettext_noop("the same opponents every deal"),
        "alternate": gettext_noop("opponents change every deal"),
    },
}


def preset_label(preset: str) -> str:
    """The preset's name as people read it, in the active language (the key itself if unknown)."""
    return _(PRESET_LABELS[preset]) if preset in PRESET_LABELS else preset


def field_label(name: str) -> str:
    """The rule's name as people read it, in the active language."""
    return _(FIELD_LABELS[name])


def rule_words() -> dict[str, Any]:
    """The words a rule set is described in (presets, rules, choices), for a page that describes one
    without the server: the sheet of a game started on a phone with no network (static/js/offline/).
    In the active language: the offline page is rendered for its reader."""
    return {
        "presets": {key: _(label) for key, label in PRESET_LABELS.items()},
        "fields": {key: _(label) for key, label in FIELD_LABELS.items()},
        "choices": {
            name: {value: _(words) for value, words in choices.items()} for name, choices in _CHOICE_WORDS.items()
        },
    }


def _describe_value(rules: RuleSet, name: str) -> str:
    value = getattr(rules, name)
    if name in _CHOICE_WORDS:
        return _(_CHOICE_WORDS[name][value])
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if value is None:
        return _("not allowed") if name == "big_gin_bonus" else _("off")
    if name == "knock_limit" and rules.oklahoma:
        return _("the upcard's value")
    if name == "knock_limit" and value == 0:
        return _("no knocking (gin only)")
    return str(value)


# name -> (kind, allowed values or (min, max))
_SCHEMA: dict[str, tuple[str, Any]] = {
    "knock_limit": ("int", (0, 10)),
    "gin_bonus": ("int", (0, MAX_BONUS)),
    "big_gin_bonus": ("int_or_null", (0, MAX_BONUS)),
    "undercut_bonus": ("int", (0, MAX_BONUS)),
    "undercut_on_tie": ("bool", None),
    "target": ("int", (1, MAX_BONUS)),
    "game_bonus": ("int", (0, MAX_BONUS)),
    "timed_game_bonus": ("int", (0, MAX_BONUS)),
    "box_bonus": ("int", (0, MAX_BONUS)),
    "line_bonus": ("int_or_null", (0, MAX_BONUS)),
    "line_bonus_margin": ("int", (0, MAX_BONUS)),
    "shutout_mode": ("choice", SHUTOUT_MODES),
    "shutout_bonus": ("int", (0, MAX_BONUS)),
    "oklahoma": ("bool", None),
    "oklahoma_ace": ("choice", OKLAHOMA_ACE_MODES),
    "spade_double": ("bool", None),
    "spade_double_boxes": ("bool", None),
    "hollywood": ("bool", None),
    "next_dealer": ("choice", NEXT_DEALER_MODES),
    "partner_opponents": ("choice", PARTNER_OPPONENTS_MODES),
}
RULE_FIELDS = tuple(_SCHEMA)
RULE_KINDS = {name: kind for name, (kind, _allowed) in _SCHEMA.items()}  # how engine.overrides reads a value


def _check_value(name: str, value: Any) -> Any:
    kind, allowed = _SCHEMA[name]
    if kind == "bool":
        if not isinstance(value, bool):
            raise RuleError(
                name, _("%(name)s must be true or false, not %(value)s") % {"name": name, "value": repr(value)}
            )
        return value
    if kind == "choice":
        if value not in allowed:
            raise RuleError(
                name,
                _("%(name)s must be one of %(allowed)s, not %(value)s")
                % {"name": name, "allowed": ", ".join(allowed), "value": repr(value)},
            )
        return value
    if value is None and kind == "int_or_null":
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if kind == "int_or_null":
            message = _("%(name)s must be a whole number or null, not %(value)s")
        else:
            message = _("%(name)s must be a whole number, not %(value)s")
        raise RuleError(name, message % {"name": name, "value": repr(value)})
    low, high = allowed
    if not low <= value <= high:
        raise RuleError(
            name,
            _("%(name)s must be between %(low)s and %(high)s, not %(value)s")
            % {"name": name, "low": low, "high": high, "value": value},
            _("enter a number from %(low)s to %(high)s, not %(value)s") % {"low": low, "high": high, "value": value},
        )
    return value


def preset_named(name: Any) -> str:
    """The preset a name means: letter case and spaces around it do not matter ("Standard" is
    ``standard``), as in every other name a rule set takes; anything else refuses, naming ``preset``."""
    key = name.strip().lower() if isinstance(name, str) else None
    if key not in PRESETS:
        shown = f"“{name}”" if isinstance(name, str) else repr(name)
        raise RuleError(
            "preset",
            _("preset must be one of %(presets)s, not %(value)s") % {"presets": ", ".join(PRESETS), "value": shown},
        )
    return key


# Rule sets already resolved, by their spec's (name, type, value) triples: every page and write resolves its game's
# stored rules again, each ~20 us, to the same frozen RuleSet. The type is in the key because True == 1 (a spec
# that refuses must not find one that resolves). A spec that refuses is never kept: its error is said anew, in
# the language of the moment. Emptied when full.
_RESOLVED: dict[tuple, RuleSet] = {}
_RESOLVED_KEPT = 1024


def resolve_rules(spec: Any) -> RuleSet:
    """Turn ``{"preset": ..., <overrides>}`` into a full, validated RuleSet.

    A missing preset means ``standard``; its name is read by ``preset_named``. An unknown
    field, or a value of the wrong type or range, raises RuleError naming the field.
    ``timed_game_bonus``, unless given, is the resolved ``game_bonus``.
    """
    if spec is None:
        spec = {}
    if isinstance(spec, RuleSet):
        return spec
    if not isinstance(spec, dict):
        raise RuleError("rules", _('rules must be an object such as {"preset": "standard"}'))
    try:
        key = tuple((name, type(value), value) for name, value in spec.items())
        rules = _RESOLVED.get(key)
    except TypeError:  # a value that cannot be a key (a list, a dict): resolved, and refused, as it comes
        return _resolved(spec)
    if rules is None:
        rules = _resolved(spec)
        if len(_RESOLVED) >= _RESOLVED_KEPT:
            _RESOLVED.clear()
        _RESOLVED[key] = rules
    return rules


def _resolved(spec: dict) -> RuleSet:
    preset_name = preset_named(spec.get("preset", "standard"))
    overrides: dict[str, Any] = {}
    for name, value in spec.items():
        if name == "preset":
            continue
        if name not in _SCHEMA:
            raise RuleError(
                name,
                _("%(name)s is not a rule (known rules: %(known)s)") % {"name": name, "known": ", ".join(RULE_FIELDS)},
            )
        overrides[name] = _check_value(name, value)
    if "timed_game_bonus" not in overrides:
        overrides["timed_game_bonus"] = overrides.get("game_bonus", PRESETS[preset_name].game_bonus)
    rules = replace(PRESETS[preset_name], **overrides)
    _check_partnership(rules)
    return rules


def check_two_players(rules: RuleSet) -> None:
    """Refuse a rule set a game of two players cannot be played under (partnership gin needs four)."""
    if rules.partnership:
        raise RuleError("preset", _("partnership gin is played by four players, not two"))


def _check_partnership(rules: RuleSet) -> None:
    """Partnership gin is not played Hollywood, and its rules mean nothing to two players (docs/rules.md)."""
    if rules.partnership and rules.hollywood:
        raise RuleError("rules", _("partnership gin cannot be played Hollywood: choose one or the other"))
    if not rules.partnership and rules.partner_opponents != PRESETS["partnership"].partner_opponents:
        raise RuleError(
            "partner_opponents",
            _("partner_opponents is a rule of partnership gin (four players), not of %(preset)s")
            % {"preset": rules.preset},
        )
