"""Forms of the kitchen-table pages. They only collect and tidy facts; the
services and the engine decide what is allowed and what it scores."""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import fields, replace
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.models import Player
from players.services import MAX_NAME_LENGTH, clean_name
from scoring.audit import ENDING_WORDS
from scoring.engine.card_facts import ALL_CARDS, suit_rows
from scoring.engine.cards import RANK_NAMES, SUIT_SYMBOLS, SUITS
from scoring.engine.overrides import parse_value
from scoring.engine.rules import (
    FIELD_LABELS,
    NEXT_DEALER_MODES,
    OKLAHOMA_ACE_MODES,
    PARTNER_OPPONENTS_MODES,
    PARTNERSHIP_PRESETS,
    PARTNERSHIP_RULES,
    PRESET_LABELS,
    PRESETS,
    SHUTOUT_MODES,
    RuleError,
    RuleSet,
    field_label,
    resolve_rules,
)

NUMERIC = {"inputmode": "numeric", "pattern": "[0-9]*", "autocomplete": "off"}
CHOICE_RULES = {"shutout_mode": SHUTOUT_MODES, "oklahoma_ace": OKLAHOMA_ACE_MODES, "next_dealer": NEXT_DEALER_MODES}
# Rules set by their own control on the new-game form, not in the overrides list.
OWN_CONTROL_RULES = ("hollywood",)
OVERRIDE_RULES = tuple(name for name in FIELD_LABELS if name not in OWN_CONTROL_RULES + PARTNERSHIP_RULES)
_RULE_TYPES = {field.name: str(field.type) for field in fields(RuleSet)}

HAND_FIELD_LABELS = {
    "ending": gettext_lazy("How the hand ended"),
    "by": gettext_lazy("Who went out"),
    "knocker_deadwood": gettext_lazy("Knocker's deadwood"),
    "defender_deadwood": gettext_lazy("Other player's deadwood"),
    "upcard": gettext_lazy("Upcard"),
    "upcard_rank": gettext_lazy("Upcard"),
    "upcard_suit": gettext_lazy("Upcard"),
    "number": gettext_lazy("Hand number"),
    "expected_number": gettext_lazy("Hand number"),
    "cards": gettext_lazy("Cards"),
    "reason": gettext_lazy("Reason for the correction"),
    "deal": gettext_lazy("Deal"),
    "board": gettext_lazy("Board"),
}
CARD_ACTIONS = ("cards_on", "cards_off", "cards")  # enter cards, type deadwood instead, work out deadwood
# Field codes (and the engine's own name for a box) in a refusal, said as the form says them.
_CODE_WORDS = {
    "knocker_deadwood": gettext_lazy("the knocker's deadwood"),
    "defender_deadwood": gettext_lazy("the other player's deadwood"),
    "'by'": gettext_lazy("who went out"),
    "the defender's deadwood": gettext_lazy("the other player's deadwood"),
}


def refusal_text(label: str, message: str) -> str:
    """An engine/service refusal in plain words, led by the field's label."""
    # The engine leads with the hand ("hand 3: ...", in the reader's language: "Spiel 3: ", "donne 3 : "),
    # which the form's place already says.
    text = re.sub(r"^[^\W\d_]+ \d+\s?: ", "", message)
    text = re.sub(r"^(knocker_deadwood|defender_deadwood) (?=\d)", "", text)  # the label already names it
    for code, words in _CODE_WORDS.items():
        text = text.replace(code, str(words))
    box_names = "|".join(re.escape(str(_CODE_WORDS[code])) for code in ("knocker_deadwood", "defender_deadwood"))
    text = re.sub(rf" \(({box_names})\)", "", text)
    return labelled(label, text)


def labelled(label: str, message: str) -> str:
    """A message led by the label of the box it is about ("Knocker's deadwood: ...")."""
    return _("%(label)s: %(message)s") % {"label": label, "message": message}


def _choice_words(name: str, value: str) -> str:
    return replace(PRESETS["standard"], **{name: value}).value_words(name)


# A choice's words, said when shown: in the language of whoever reads the form.
_lazy_choice_words = lazy(_choice_words, str)


def _rule_field(name: str) -> forms.Field:
    label = gettext_lazy(FIELD_LABELS[name])  # marked in the engine (gettext_noop), read in the reader's language
    kind = _RULE_TYPES[name]
    if name in CHOICE_RULES:
        choices = [("", gettext_lazy("as the preset"))]
        choices += [(value, _lazy_choice_words(name, value)) for value in CHOICE_RULES[name]]
        return forms.ChoiceField(label=label, required=False, choices=choices)
    if kind == "bool":
        return forms.ChoiceField(
            label=label,
            required=False,
            choices=[("", gettext_lazy("as the preset")), ("yes", gettext_lazy("yes")), ("no", gettext_lazy("no"))],
        )
    if "None" in kind:
        return forms.CharField(
            label=label,
            required=False,
            max_length=6,
            help_text=gettext_lazy("a number, or “off”"),
            widget=forms.TextInput(attrs={"autocomplete": "off", "size": 6}),
        )
    # The title: what the browser adds to its "match the requested format" when it refuses the box (pattern).
    invalid = forms.IntegerField.default_error_messages["invalid"]
    return forms.IntegerField(
        label=label, required=False, widget=forms.TextInput(attrs={**NUMERIC, "size": 6, "title": invalid})
    )


SEATS = ("one", "two", "three", "four")  # record order: sides are the 1st & 3rd v the 2nd & 4th
SEAT_LABELS = {
    "one": gettext_lazy("The first player"),
    "two": gettext_lazy("The second player"),
    "three": gettext_lazy("The third player"),
    "four": gettext_lazy("The fourth player"),
}
SEAT_MISSING = {
    "three": gettext_lazy("Third player: partnership gin needs four players; enter a name."),
    "four": gettext_lazy("Fourth player: partnership gin needs four players; enter a name."),
}
SEAT_NOT_PLAYED = {
    "three": gettext_lazy("Third player: only partnership gin has four players; choose its rules or leave this empty."),
    "four": gettext_lazy("Fourth player: only partnership gin has four players; choose its rules or leave this empty."),
}
SEAT_SAME = {
    "two": gettext_lazy("Second player: a game needs two different players."),
    "three": gettext_lazy("Third player: the four players must be four different people."),
    "four": gettext_lazy("Fourth player: the four players must be four different people."),
}


class PlayerNameField(forms.CharField):
    """A seat's name as the player service will take it (players.services.clean_name: a name of nothing
    visible is no name, so the seat's "enter a name"), and a name too long refused with the seat named."""

    def to_python(self, value):
        return clean_name(super().to_python(value))

    def validate(self, value):
        super().validate(value)
        if len(value) > MAX_NAME_LENGTH:
            message = _("A name has at most %(max)s characters.") % {"max": MAX_NAME_LENGTH}
            raise forms.ValidationError(labelled(str(self.label), message), code="max_length")


def _player_field(label, **kwargs) -> forms.CharField:
    widget = forms.TextInput(attrs={"list": "player-names", "autocomplete": "off", "maxlength": MAX_NAME_LENGTH})
    return PlayerNameField(label=label, widget=widget, **kwargs)


def _new_game_fields() -> dict[str, forms.Field]:
    fields = {
        "player_one": _player_field(
            gettext_lazy("First player"), error_messages={"required": gettext_lazy("First player: enter a name.")}
        ),
        "player_two": _player_field(
            gettext_lazy("Second player"), error_messages={"required": gettext_lazy("Second player: enter a name.")}
        ),
        # Partnership gin only (four players): sides are the 1st & 3rd v the 2nd & 4th (docs/rules.md).
        "player_three": _player_field(gettext_lazy("Third player (partner of the first)"), required=False),
        "player_four": _player_field(gettext_lazy("Fourth player (partner of the second)"), required=False),
        # Any seat; clean() keeps the third and fourth to a partnership. The form offers them by the names
        # typed (NewGameForm.dealer_choices).
        "first_dealer": forms.ChoiceField(
            label=gettext_lazy("Who deals first"),
            choices=[(seat, SEAT_LABELS[seat]) for seat in SEATS],
            initial="one",
            widget=forms.RadioSelect,
        ),
        "preset": forms.ChoiceField(
            label=gettext_lazy("Rules"),
            choices=[(key, gettext_lazy(PRESET_LABELS[key])) for key in PRESET_LABELS],
            initial="standard",
        ),
        "hollywood": forms.BooleanField(
            label=gettext_lazy("Hollywood (three games at once)"),
            required=False,
            help_text=gettext_lazy("The Hollywood preset is always played Hollywood."),
        ),
        "partner_opponents": forms.ChoiceField(
            label=gettext_lazy(FIELD_LABELS["partner_opponents"]),
            required=False,
            choices=[(value, _lazy_choice_words("partner_opponents", value)) for value in PARTNER_OPPONENTS_MODES],
            initial=PRESETS["partnership"].partner_opponents,
            widget=forms.RadioSelect,
        ),
    }
    fields.update({f"rule_{name}": _rule_field(name) for name in OVERRIDE_RULES})
    return fields


# Built once and shared by every NewGameForm: a form reads its fields and never changes them, and their
# words are lazy (said in each reader's language). Building and copying these 26 fields was 0.8 ms of
# every new-game request (issue 40).
_NEW_GAME_FIELDS = _new_game_fields()


class NewGameForm(forms.Form):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)  # no declared fields: nothing to copy
        self.fields = dict(_NEW_GAME_FIELDS)

    def dealer_choices(self) -> list[tuple[str, str]]:
        """Who deals first, offered by the names typed (site.js renames them while typing)."""
        source = self.data if self.is_bound else self.initial
        return [(seat, clean_name(str(source.get(f"player_{seat}") or "")) or SEAT_LABELS[seat]) for seat in SEATS]

    def partnership_fields(self):
        return [self["player_three"], self["player_four"]]

    @property
    def partnership(self) -> bool:
        """The partnership preset is chosen (asked or shown): four players, two sides."""
        source = self.data if self.is_bound else self.initial
        return (source.get("preset") or "") in PARTNERSHIP_PRESETS

    def clean(self):
        cleaned = super().clean()
        partnership = cleaned.get("preset") in PARTNERSHIP_PRESETS
        seats = SEATS if partnership else SEATS[:2]
        if partnership:
            for seat in SEATS[2:]:
                if not cleaned.get(f"player_{seat}"):
                    self.add_error(f"player_{seat}", SEAT_MISSING[seat])
        else:
            for seat in SEATS[2:]:
                if cleaned.get(f"player_{seat}"):
                    self.add_error(f"player_{seat}", SEAT_NOT_PLAYED[seat])
            if cleaned.get("first_dealer") in SEATS[2:]:
                self.add_error("first_dealer", _("Who deals first: the first or the second player (two players)."))
        seen: dict[str, str] = {}
        for seat in seats:
            name = clean_name(cleaned.get(f"player_{seat}") or "").lower()
            if not name:
                continue
            if name in seen:
                self.add_error(f"player_{seat}", SEAT_SAME[seat])
            else:
                seen[name] = seat
        spec: dict[str, Any] = {"preset": cleaned.get("preset") or "standard"}
        for name in OVERRIDE_RULES:
            raw = cleaned.get(f"rule_{name}")
            if raw in (None, ""):
                continue
            try:
                spec[name] = parse_value(name, raw)  # the one override parser (season form, API and import too)
            except RuleError as error:
                self.add_error(f"rule_{name}", labelled(field_label(name), error.detail or error.message))
        if cleaned.get("hollywood") and spec["preset"] != "hollywood":
            spec["hollywood"] = True
        if partnership and cleaned.get("partner_opponents"):
            spec["partner_opponents"] = cleaned["partner_opponents"]
        try:
            cleaned["rules"] = resolve_rules(spec)
        except RuleError as error:
            if error.field == "rules" and spec.get("hollywood"):
                target = "hollywood"
            else:
                target = f"rule_{error.field}" if f"rule_{error.field}" in self.fields else "preset"
            label = field_label(error.field) if error.field in FIELD_LABELS else _("Rules")
            self.add_error(target, labelled(label, error.detail or error.message))
        return cleaned


def new_game_initial(game) -> dict[str, Any]:
    """Initial values that repeat ``game``'s players and rules."""
    rules = resolve_rules(game.rules)
    kind, changed = _rules_initial(rules)
    initial: dict[str, Any] = {"player_one": game.player_one.name, "player_two": game.player_two.name, **kind}
    if rules.partnership:
        initial.update(player_three=game.player_three.name, player_four=game.player_four.name)
    initial.update(changed)
    return initial


@functools.lru_cache(maxsize=512)
def _rules_initial(rules: RuleSet) -> tuple[dict[str, Any], dict[str, Any]]:
    """A rule set's initial values (its kind of game; then, in order, the partnership's pairing and the rules it
    changes), the same for every game of those rules: kept, as every GET of the new-game page asks them.
    Callers copy them (new_game_initial merges them into a dict of its own)."""
    kind: dict[str, Any] = {"preset": rules.preset, "hollywood": rules.hollywood}
    changed: dict[str, Any] = {"partner_opponents": rules.partner_opponents} if rules.partnership else {}
    for name, value in rules.overrides().items():
        if name not in OVERRIDE_RULES:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif value is None:
            value = "off"
        changed[f"rule_{name}"] = value
    return kind, changed


class CardsField(forms.MultipleChoiceField):
    """A player's cards, picked from the 52: the same choices in every form, so a form's copy of the field shares
    them instead of deep-copying 52 pairs twice for every hand form (nine tenths of making one), and so does its
    widget's copy, instead of checking the 52 pairs again (the widget's own copy sets its choices anew: half of
    making a hand form, which every hand POST does)."""

    def __deepcopy__(self, memo):
        result = copy.copy(self)  # as forms.Field.__deepcopy__, but for the widget's choices: shared, as the field's
        memo[id(self)] = result
        widget = copy.copy(self.widget)
        widget.attrs = self.widget.attrs.copy()
        memo[id(self.widget)] = widget
        result.widget = widget
        result.error_messages = self.error_messages.copy()
        result.validators = self.validators[:]
        return result


class HandForm(forms.Form):
    """The facts of one hand. Fields that do not apply to the ending are ignored."""

    ending = forms.ChoiceField(
        label=HAND_FIELD_LABELS["ending"],
        widget=forms.RadioSelect,
        error_messages={
            "required": gettext_lazy("How the hand ended: choose Knock, Gin or Dead hand."),
            "invalid_choice": gettext_lazy("How the hand ended: %(value)s is not allowed under these rules."),
        },
    )
    by = forms.TypedChoiceField(label=HAND_FIELD_LABELS["by"], required=False, coerce=int, widget=forms.RadioSelect)
    knocker_deadwood = forms.IntegerField(
        label=HAND_FIELD_LABELS["knocker_deadwood"],
        required=False,
        widget=forms.TextInput(attrs=NUMERIC),
        error_messages={"invalid": gettext_lazy("Knocker's deadwood: enter a whole number.")},
    )
    defender_deadwood = forms.IntegerField(
        label=HAND_FIELD_LABELS["defender_deadwood"],
        required=False,
        help_text=gettext_lazy("after lay-offs"),
        widget=forms.TextInput(attrs=NUMERIC),
        error_messages={"invalid": gettext_lazy("Other player's deadwood: enter a whole number.")},
    )
    expected_number = forms.IntegerField(required=False, widget=forms.HiddenInput)
    entry = forms.CharField(required=False, widget=forms.HiddenInput)  # "cards" while entering cards
    cards_one = CardsField(required=False, choices=[(c, c) for c in ALL_CARDS], widget=forms.CheckboxSelectMultiple)
    cards_two = CardsField(required=False, choices=[(c, c) for c in ALL_CARDS], widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, game, rules: RuleSet, pair=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game
        self.rules = rules
        # A partnership board is a two-handed hand between the two players of that board.
        self.pair = tuple(pair) if pair else (game.player_one, game.player_two)
        self.fields["cards_one"].label = _("%(name)s's cards") % {"name": self.pair[0].name}
        self.fields["cards_two"].label = _("%(name)s's cards") % {"name": self.pair[1].name}
        endings = []
        if rules.oklahoma or rules.knock_limit > 0:
            endings.append("knock")
        endings.append("gin")
        if rules.big_gin_allowed:
            endings.append("big_gin")
        endings.append("dead")
        self.fields["ending"].choices = [(ending, ENDING_WORDS[ending]) for ending in endings]
        self.fields["by"].choices = [(player.pk, player.name) for player in self.pair]
        if rules.oklahoma:
            self.fields["upcard_rank"] = forms.ChoiceField(
                label=_("Upcard rank"),
                required=False,
                choices=[(name, name) for name in RANK_NAMES],
                widget=forms.RadioSelect,
            )
            self.fields["upcard_suit"] = forms.ChoiceField(
                label=_("Upcard suit"),
                required=False,
                choices=[(suit, f"{SUIT_SYMBOLS[suit]} {suit}") for suit in SUITS],
                widget=forms.RadioSelect,
            )
        for name, field in self.fields.items():
            if isinstance(field.widget, forms.RadioSelect):
                field.widget.attrs.setdefault("class", f"choices choices-{name}")

    def clean(self):
        cleaned = super().clean()
        ending = cleaned.get("ending")
        if ending == "dead":
            cleaned["by"] = None
            cleaned["knocker_deadwood"] = None
            cleaned["defender_deadwood"] = None
        # A knocker's deadwood given with a gin is not dropped here: the services answer it
        # (0 is a gin's own deadwood, any other number is refused), as for the API and import.
        elif ending and cleaned.get("by") in (None, ""):
            self.add_error("by", _("Who went out: choose the player who went out."))
        if self.rules.oklahoma:
            rank, suit = cleaned.get("upcard_rank"), cleaned.get("upcard_suit")
            if rank and suit:
                cleaned["upcard"] = f"{rank}{suit}"
            elif rank or suit:
                self.add_error("upcard_rank", _("Upcard: choose both the rank and the suit."))
            else:
                cleaned["upcard"] = None
        else:
            cleaned["upcard"] = None
        return cleaned

    @property
    def card_mode(self) -> bool:
        """Entering cards (the grids shown) rather than typing the deadwood."""
        if self.is_bound:
            action = self.data.get("action")
            if action in ("cards_on", "cards_off"):
                return action == "cards_on"
            return self.data.get("entry") == "cards"
        return self.initial.get("entry") == "cards"

    def _picked(self, name: str) -> list[str]:
        if not self.is_bound:
            return list(self.initial.get(name) or [])
        raw = self.data.getlist(name) if hasattr(self.data, "getlist") else self.data.get(name) or []
        return [code for code in raw if code in ALL_CARDS]

    def picked_cards(self) -> tuple[list[str], list[str]] | None:
        """(who went out's cards, the other player's) as picked; None when not entering cards (or a dead hand)."""
        data = getattr(self, "cleaned_data", {})
        if not self.card_mode or data.get("ending") == "dead":
            return None
        one, two = self._picked("cards_one"), self._picked("cards_two")
        by = data.get("by")
        return (two, one) if by == self.pair[1].pk else (one, two)

    def card_grids(self) -> list[dict[str, Any]]:
        """The two tap-to-pick grids: 4 suit rows of 13 cards per player, each card picked, taken or free."""
        one, two = set(self._picked("cards_one")), set(self._picked("cards_two"))
        grids = []
        for name, mine, theirs in (("cards_one", one, two), ("cards_two", two, one)):
            rows = [
                [
                    {
                        **face,
                        "id": f"id_{name}_{face['code']}",
                        "checked": face["code"] in mine,
                        "taken": face["code"] in theirs and face["code"] not in mine,
                    }
                    for face in faces
                ]
                for _suit, faces in suit_rows()
            ]
            grids.append(
                {
                    "name": name,
                    "label": self.fields[name].label,
                    "rows": rows,
                    "count": len(mine),
                    "errors": self.errors.get(name, []) if self.is_bound else [],
                }
            )
        return grids

    def facts(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "ending": data["ending"],
            "by": data.get("by") or None,
            "knocker_deadwood": data.get("knocker_deadwood"),
            "defender_deadwood": data.get("defender_deadwood"),
            "upcard": data.get("upcard"),
        }

    def add_refusal(self, field: str, message: str) -> None:
        """Attach a service refusal (HandRefused) to the field it names."""
        target = {"upcard": "upcard_rank", "number": None, "players": None, "cards": "cards_one"}.get(field, field)
        if target is not None and target not in self.fields:
            target = None
        self.add_error(
            target, refusal_text(HAND_FIELD_LABELS.get(field, field.replace("_", " ").capitalize()), message)
        )


def _reason_field(label) -> forms.CharField:
    """Why a hand is corrected or removed: optional, but a confirmed result needs it (the service's rule)."""
    return forms.CharField(
        label=label,
        required=False,
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy(
            "Optional; required when the result was already confirmed. Shown in the game's history."
        ),
    )


class CorrectionForm(HandForm):
    """A hand's corrected facts and why (kept in the game's history; a confirmed result needs it)."""

    reason = _reason_field(gettext_lazy("Reason for the correction"))

    def reason_text(self) -> str:
        return (getattr(self, "cleaned_data", {}).get("reason") or self.data.get("reason") or "").strip()


class BoardForm(HandForm):
    """One board of a partnership deal (docs/rules.md, "Partnership gin"): a two-handed hand's facts between
    the board's two players, for the deal the phone saw open (a stale deal is refused by the services)."""

    deal = forms.IntegerField(required=False, widget=forms.HiddenInput)
    board = forms.TypedChoiceField(
        choices=[(1, "1"), (2, "2")],
        coerce=int,
        widget=forms.HiddenInput,
        error_messages={
            "required": gettext_lazy("Board: say which board (1 or 2) this hand was played on."),
            "invalid_choice": gettext_lazy("Board: a deal has boards 1 and 2 only."),
        },
    )


class RemovalForm(forms.Form):
    """Why a hand is removed (kept in the game's history; a confirmed result needs it)."""

    reason = _reason_field(gettext_lazy("Reason for the removal"))

    def add_refusal(self, field: str, message: str) -> None:
        """Attach a service refusal (HandRefused) to the reason box, or to the form."""
        if field == "reason":
            self.add_error("reason", refusal_text(self.fields["reason"].label, message))
        else:
            self.add_error(None, message)


def as_form_data(initial: dict[str, Any]) -> QueryDict:
    """Initial values as if posted (lists stay lists), to bind a form to a stored hand."""
    data = QueryDict(mutable=True)
    for name, value in initial.items():
        if isinstance(value, (list, tuple)):
            data.setlist(name, [str(item) for item in value])
        elif value is not None:
            data[name] = str(value)
    return data


def hand_initial(hand) -> dict[str, Any]:
    initial = {
        "ending": hand.ending,
        "by": hand.by_id,
        "knocker_deadwood": hand.knocker_deadwood,
        "defender_deadwood": hand.defender_deadwood,
    }
    if hand.upcard:
        initial["upcard_rank"], initial["upcard_suit"] = hand.upcard[:-1], hand.upcard[-1:]
    if hand.cards and hand.by_id:  # a hand entered card by card opens with its cards picked
        by, defender = hand.cards.get("by", []), hand.cards.get("defender", [])
        one, two = (by, defender) if hand.by_id == hand.game.player_one_id else (defender, by)
        initial.update(entry="cards", cards_one=one, cards_two=two)
    return initial


class PlayerMergeForm(forms.Form):
    """Two player records of one person: the one kept and the one merged into it (then deleted)."""

    keep = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        label=gettext_lazy("Keep"),
        error_messages={
            "required": gettext_lazy("Keep: choose the record to keep."),
            "invalid_choice": gettext_lazy("Keep: choose a player."),
        },
    )
    drop = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        label=gettext_lazy("Merge into it (then delete)"),
        error_messages={
            "required": gettext_lazy("Merge into it: choose the record to merge."),
            "invalid_choice": gettext_lazy("Merge into it: choose a player."),
        },
    )
    same_person = forms.BooleanField(
        label=gettext_lazy("These two records are the same person"),
        error_messages={
            "required": gettext_lazy("Tick that the two records are the same person: a merge cannot be undone.")
        },
    )

    def __init__(self, *args, players, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["keep"].queryset = players
        self.fields["drop"].queryset = players
