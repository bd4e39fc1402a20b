"""Kitchen-table pages: start a game, keep its scoresheet, correct it, play again.

Views stay thin: the services write (and refuse), the engine scores, the
templates show. Every page works without JavaScript; with htmx the record
form swaps only the sheet, and the preview only its own box.
"""

from __future__ import annotations

import uuid
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from ginleague import numbers
from ginleague.csrf import get_token
from players.services import player_get_or_create
from players.views import no_one_can_sign_in
from scoring import idempotency, kept_sheet, services
from scoring.audit import game_audit_trail, outcome_words
from scoring.changes import game_version
from scoring.engine.card_facts import Worked, knock_limit_for, work_out
from scoring.engine.partnership import board_pairs, sides_of
from scoring.engine.rules import preset_label
from scoring.engine.score import dealer_after
from scoring.forms import (
    CARD_ACTIONS,
    HAND_FIELD_LABELS,
    SEATS,
    BoardForm,
    CorrectionForm,
    HandForm,
    NewGameForm,
    PlayerMergeForm,
    RemovalForm,
    as_form_data,
    hand_initial,
    labelled,
    new_game_initial,
    refusal_text,
)
from scoring.game_list_html import game_list_html
from scoring.merge import player_merge as player_merge_service
from scoring.models import Game, Hand
from scoring.new_game_html import new_game_fields, player_options, recent_items
from scoring.permissions import (
    CALL_TIME_REFUSAL,
    can_call_time,
    can_confirm,
    can_dispute,
    can_edit_game,
    can_view_game,
    club_of_game,
    confirmed_by_a_player,
    edit_refusal,
    merge_refusal,
    mergeable_players,
    refuse_closed_season,
    result_waits_for,
)
from scoring.scoresheet import (
    all_rules_html,
    board_pieces_html,
    describe_result,
    game_quartet,
    hand_row_words_json,
    hands_hidden,
    offline_copy_json,
    partnership_view,
    rows_html,
    sheet_boards,
    sheet_rows,
    sheet_urls,
    side_name,
    written,
)
from scoring.selectors import (
    Sitting,
    board_players,
    game_for_sheet,
    game_list,
    game_session,
    own_games,
    partnership_sheet,
    player_names,
    recent_sittings,
    todo_for,
    with_hands,
)
from scoring.services import HandConflict, HandRefused
from scoring.templatetags.hand_cards import display_sides


def home(request):
    # First run: create the owner (someone signed in has an account: no need to ask the database).
    if not request.user.is_authenticated and no_one_can_sign_in():
        return redirect("setup")
    # A member sees their own games; everyone's (every club's they can see) is one link away.
    show_all = request.GET.get("show") == "all" or not request.user.is_authenticated
    games = list(game_list(viewer=request.user)[:50]) if show_all else own_games(request.user)
    todo = _todo(request)
    context = {"games": games, "games_html": game_list_html(games), "show_all": show_all, "todo": todo}
    return render(request, "scoring/home.html", context)


OPENED_INVITATIONS = "opened_invitations"  # session key: invitation tokens this visitor opened (league views)


def _todo(request):
    return todo_for(request.user, invitation_tokens=request.session.get(OPENED_INVITATIONS, ()))


def todo(request):
    """Everything that needs the signed-in user: results to confirm, disputes, fixtures due, invitations."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return render(request, "scoring/todo.html", {"todo": _todo(request)})


def todo_count(request):
    """The navigation's count (fetched after the page loads, so no page pays for it up front)."""
    count = _todo(request).count if request.user.is_authenticated else 0
    response = render(request, "scoring/todo.html#count", {"count": count})
    response["Cache-Control"] = "no-store"
    return response


# --- helpers ---------------------------------------------------------------


def _load_game(pk: int, user, *, hands: bool = True) -> Game:
    """The game, unless there is none or it is a private club's game ``user`` may not see (``hands``: with its
    hands loaded)."""
    try:
        game = game_for_sheet(pk=pk, hands=hands)
    except Game.DoesNotExist:
        raise Http404(_("No such game")) from None
    if not can_view_game(user, game):
        raise Http404(_("No such game"))
    return game


def game_writer(view=None, *, hands: bool = True):
    """Load the game; anonymous users go to sign in, others need can_edit_game. ``hands=False`` (``@game_writer(
    hands=False)``): the game without its hands, for a view whose write reads them under the game's lock."""
    if view is None:
        return lambda view: game_writer(view, hands=hands)

    @wraps(view)
    def wrapper(request, pk, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        game = _load_game(pk, request.user, hands=hands)
        try:  # the state first (a closed season says so, to anyone), then the person
            refuse_closed_season(season_id=game.season_id)
        except ValidationError as refusal:
            return _back_to_sheet(request, game, " ".join(refusal.messages))
        if refusal := edit_refusal(request.user, game):
            raise PermissionDenied(refusal)
        return view(request, game, *args, **kwargs)

    return wrapper


def _back_to_sheet(request, game: Game, message: str) -> HttpResponse:
    """A write the game's state refuses: back to its scoresheet, which says why (htmx: the whole page)."""
    messages.error(request, message)
    url = reverse("game", args=[game.pk])
    if request.htmx:
        return HttpResponse(headers={"HX-Redirect": url})
    return redirect(url)


def sheet_context(
    request,
    game: Game,
    *,
    form: HandForm | None = None,
    preview: str = "",
    preview_ok: bool = False,
    saved: str = "",
    card_mode: bool = False,
    all_hands: bool = False,
) -> dict:
    """Everything the scoresheet shows, from the stored facts scored by the engine (the latest
    SHEET_HANDS_SHOWN hands unless ``all_hands``). The blank sheet (no form sent back, no preview) comes as its
    body's HTML (``sheet_html``), kept per game version and viewer's place (scoring/kept_sheet.py)."""
    rules = game.rule_set
    if rules.partnership:
        return partnership_context(request, game, rules, board_form=form, saved=saved)
    # A league game's season (the sheet says when it closed; the permissions ask whether it has), read once.
    season_closed = game.season.closed_at if game.season_id is not None else None
    viewer = _sheet_viewer(request.user, game)
    if form is not None or preview or not kept_sheet.keeping():
        return _sheet_body_context(
            game,
            rules,
            viewer,
            form=form,
            preview=preview,
            preview_ok=preview_ok,
            saved=saved,
            card_mode=card_mode,
            all_hands=all_hands,
        )

    def render_body() -> str:
        context = _sheet_body_context(game, rules, viewer, card_mode=card_mode, all_hands=all_hands)
        context = {**context, **kept_sheet.marks()}
        if game.season_id is not None:  # a league game's status, drawn from the game's row, is drawn every time
            return render_to_string("scoring/game.html#sheet_body", context)
        # Everything a friendly's body shows that is not one of kept_sheet.HOLES: the frame's shape.
        shape = (
            game.pk,
            *((player.pk, player.name) for player in (game.player_one, game.player_two)),
            rules,
            card_mode,
            *viewer.values(),
            context["over"],
            context["hollywood"],
            bool(context["rows"]),
            bool(context["hands_hidden"]),
        )
        return kept_sheet.framed("scoring/game.html#sheet_body", context, shape=shape)

    body, token = kept_sheet.sheet_body(
        request,
        versions=(
            game.pk,
            game_version(game),
            game.player_one.name,
            game.player_two.name,
            season_closed,
            card_mode,
            all_hands,
        ),
        viewer=viewer.values(),
        render=render_body,
        saved=saved,
    )
    context = {"game": game, "sheet_html": body, "hand_words": hand_row_words_json()}
    if token is not None:  # the page's other forms (the chrome's sign-out) carry the same token, as when drawn whole
        context["csrf_token"] = token
    return context


def _blank_hand_fields(game: Game, rules, *, card_mode: bool, expected_number: int) -> str:
    """The record form's fields (scoring/_hand_fields.html) of a blank hand form: the same for every hand of the game
    but for the number expected, so written once per game, players' names, rules, language and entry (scoresheet.py
    keeps them) and that number put in."""
    players = (game.player_one, game.player_two)

    def write() -> str:
        initial = {"expected_number": kept_sheet.EXPECTED_MARK, "entry": "cards" if card_mode else ""}
        form = HandForm(game=game, rules=rules, initial=initial)
        context = {"form": form, "game": game, "live": True, **_card_context(form, game)}
        return render_to_string("scoring/_hand_fields.html", context)

    key = ("blank hand fields", game.pk, *((player.pk, player.name) for player in players), rules, card_mode)
    fields = written(key, write)
    return mark_safe(fields.replace(kept_sheet.EXPECTED_MARK, str(expected_number), 1))  # noqa: S308 - a number


def _sheet_viewer(user, game: Game) -> dict:
    """What ``user`` may do on the game's sheet, and is told about its confirmation: all the sheet's body
    shows of the viewer."""
    return {
        "editable": can_edit_game(user, game),
        "may_call_time": not services.time_call_refusal(game) and can_call_time(user, game),
        "may_withdraw_time": not services.time_withdraw_refusal(game) and can_call_time(user, game),
        **_league_context(user, game),
    }


def _sheet_body_context(
    game: Game,
    rules,
    viewer: dict,
    *,
    form: HandForm | None = None,
    preview: str = "",
    preview_ok: bool = False,
    saved: str = "",
    card_mode: bool = False,
    all_hands: bool = False,
) -> dict:
    """The sheet's body as ``viewer`` (``_sheet_viewer``) sees it: the game's hands read and scored."""
    hands, session = game_session(game, rules)
    players = (game.player_one, game.player_two)
    names = {player.pk: player.name for player in players}
    hollywood = len(session.games) > 1
    editable = viewer["editable"]
    hidden = hands_hidden(len(hands), show_all=all_hands)
    rows = sheet_rows(game, hands, session, editable=editable, hidden=hidden)
    boards = sheet_boards(game, session)
    boards_shown, results_shown, heads_shown = board_pieces_html(boards, players, hollywood=hollywood)
    blank_fields = ""
    if form is None and editable and not session.over:
        if kept_sheet.keeping():  # the blank form's fields as written before for this game and language
            blank_fields = _blank_hand_fields(game, rules, card_mode=card_mode, expected_number=len(hands) + 1)
        else:
            initial = {"expected_number": len(hands) + 1, "entry": "cards" if card_mode else ""}
            form = HandForm(game=game, rules=rules, initial=initial)
    return {
        "game": game,
        "rules": rules,
        "preset_label": preset_label(rules.preset),
        "overrides": rules.describe_overrides(),
        "all_rules_html": all_rules_html(rules),
        "hand_words": hand_row_words_json(),
        "players": players,
        "hollywood": hollywood,
        "rows": rows,
        "rows_html": rows_html(rows),
        "hands_hidden": hidden,
        "hands_shown": len(hands) - hidden,
        "boards": boards,
        "boards_html": boards_shown,
        "results_html": results_shown,
        "run_heads": heads_shown,
        "session": session,
        "over": session.over,
        "next_dealer": names.get(session.next_dealer, ""),
        "sitting_winner": names.get(session.winner, ""),
        "sitting_margin": session.margin,
        **viewer,
        "time_note": _time_note(session, len(hands)),
        "form": form,
        "blank_fields": blank_fields,
        "preview": preview,
        "preview_ok": preview_ok,
        "saved": saved,
        # A new key with every rendered record form: sending that form again (a retry) saves once.
        "save_key": uuid.uuid4().hex,
        "last_number": len(hands),
        "next_number": len(hands) + 1,
        "live": True,
        "version": game_version(game),  # what the sheet shows: its live stream compares it
        "offline_copy": offline_copy_json(game, hands, editable=editable),
        "urls": sheet_urls(game),
        **_card_context(form, game),
    }


def partnership_context(request, game: Game, rules, *, board_form: BoardForm | None = None, saved: str = "") -> dict:
    """The sheet of a partnership game (docs/rules.md, "Partnership gin"): the sides' totals, the deal in play with
    a form for each board not recorded yet (``board_form``: one sent back with its refusal), and the deals played."""
    hands = list(game.hands.all())
    sheet = partnership_sheet(game)
    editable = can_edit_game(request.user, game)
    view = partnership_view(sheet, editable=editable)
    open_deal = view["open_deal"]
    if open_deal and editable:
        for board in open_deal["boards"]:
            if board["recorded"]:
                continue
            if board_form is not None and board_form.data.get("board") == str(board["board"]):
                form = board_form
            else:
                form = BoardForm(
                    game=game,
                    rules=rules,
                    pair=board["players"],
                    initial={"deal": open_deal["number"], "board": board["board"]},
                    auto_id=f"id_b{board['board']}_%s",
                )
            board.update(form=form, save_key=uuid.uuid4().hex)
    return {
        "game": game,
        "partnership": True,
        "rules": rules,
        "preset_label": preset_label(rules.preset),
        "overrides": rules.describe_overrides(),
        "all_rules": rules.describe(),
        "pship": view,
        "over": sheet.over,
        "editable": editable,
        "saved": saved,
        "live": True,
        "version": game_version(game),
        "offline_copy": offline_copy_json(game, hands, editable=editable),
        "hand_words": hand_row_words_json(),
        **_league_context(request.user, game),
    }


def _time_note(session, hand_count: int) -> str:
    """What the sheet says once time is called (docs/rules.md, "A game ended by time")."""
    called = session.time_called_after
    if called is None:
        return ""
    if session.over:
        if called:
            return _("Time was called after hand %(number)s.") % {"number": called}
        return _("Time was called during hand 1.")
    if hand_count == called:
        return _("Time called: hand %(number)s is the last, unless the players are level after it.") % {
            "number": called + 1
        }
    return _("Time called, and the players are level: the next hand that puts one of them ahead is the last.")


@require_POST
def game_time(request, pk: int):
    """Call time on a game (a timed round), or withdraw a call pressed by mistake (``action=withdraw``):
    its players, creator, staff or the season's organisers."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("game", args=[pk]))
    game = _load_game(pk, request.user)
    try:  # the state first (a closed season says so, to anyone), then the person
        refuse_closed_season(season_id=game.season_id)
    except ValidationError as refusal:
        return _back_to_sheet(request, game, " ".join(refusal.messages))
    if not can_call_time(request.user, game):
        raise PermissionDenied(CALL_TIME_REFUSAL)
    try:
        if request.POST.get("action") == "withdraw":
            services.game_time_withdraw(game=game, withdrawn_by=request.user)
        else:
            services.game_call_time(game=game, called_by=request.user)
    except HandRefused as refusal:
        messages.error(request, refusal_text(_("Time"), refusal.message_text))
    else:
        called = game.time_called_after
        messages.success(
            request,
            _("Time call withdrawn: the game goes on to the target.")
            if called is None
            else _("Time called: hand %(number)s is the last, unless level.") % {"number": called + 1},
        )
    return redirect("game", pk=game.pk)


def _league_context(user, game: Game) -> dict:
    """A league game's sheet offers its confirmation to whoever may confirm or dispute it (nothing for a friendly)."""
    club = club_of_game(game)
    if club is None:
        return {"can_confirm": False, "can_dispute": False}
    return {
        "can_confirm": can_confirm(user, game, club),
        "can_dispute": can_dispute(user, game, club),
        "waits_for": result_waits_for(game),
        "confirmed_by_a_player": confirmed_by_a_player(game),
    }


def _render_sheet(request, game: Game, *, status: int = 200, **extra):
    context = sheet_context(request, game, **extra)
    if request.htmx:
        if "sheet_html" in context and not messages.get_messages(request):  # the usual answer to a save
            return HttpResponse(_htmx_sheet_frame().replace(kept_sheet.BODY_MARK, context["sheet_html"], 1))
        return render(request, "scoring/game.html#sheet", context)
    return render(request, "scoring/game.html", context, status=status)


def _htmx_sheet_frame() -> str:
    """game.html's ``#sheet`` as an htmx answer with no message writes it around a kept body (kept_sheet.BODY_MARK
    in its place): written once per language, instead of through the template engine and the context processors on
    every save (a tenth of the sheet's own drawing). An answer with a message to show is drawn by the template."""

    def write() -> str:
        context = {"request": {"htmx": True}, "messages": (), "sheet_html": kept_sheet.BODY_MARK}
        return render_to_string("scoring/game.html#sheet", context)

    return written(("htmx sheet frame",), write)


# --- entering the cards ------------------------------------------------------


def _card_work(form: HandForm, rules) -> Worked | None:
    """What the picked cards give (the pure solver); None when the deadwood is typed. Call after is_valid()."""
    picked = form.picked_cards()
    if picked is None:
        return None
    data = getattr(form, "cleaned_data", {})
    return work_out(
        *picked,
        ending=data.get("ending"),
        knock_limit=knock_limit_for(rules, data.get("upcard")),
        who_known=bool(data.get("by")),
    )


DEADWOOD_BOXES = ("knocker_deadwood", "defender_deadwood")


def _with_cards(form: HandForm, worked: Worked | None, game: Game, rules) -> HandForm:
    """The form again, its deadwood boxes filled with the cards' best play (emptied while the cards are unfinished).

    A box the player changed keeps their figure (play need not be the best; the services
    check it against the cards): the app fills only a box that is empty or still holds what
    it filled last (``filled_*``). What was typed is kept aside (``typed_*``) while the cards
    are on, and comes back into empty boxes when they are put away: switching never drops it.
    """
    if not form.is_bound:
        return form
    data = form.data.copy()
    if worked is None:
        if data.get("action") != "cards_off":
            return form
        for name in DEADWOOD_BOXES:
            if not data.get(name) and data.get(f"typed_{name}"):
                data[name] = data[f"typed_{name}"]
        filled = type(form)(data, game=game, rules=rules)
        filled.is_valid()
        return filled
    turning_on = data.get("action") == "cards_on"
    for name, best in zip(DEADWOOD_BOXES, (worked.knocker_deadwood, worked.defender_deadwood), strict=True):
        if turning_on:
            data[f"typed_{name}"] = data.get(name, "")
        value = data.get(name, "").strip()
        if turning_on or not value or value == data.get(f"filled_{name}", ""):
            data[name] = data[f"filled_{name}"] = "" if best is None else str(best)
    filled = type(form)(data, game=game, rules=rules)  # a correction keeps its reason
    filled.is_valid()
    filled.worked = worked
    return filled


def _card_context(form: HandForm | None, game: Game) -> dict:
    """The worked-out melds of a form in card mode, for the template."""
    worked = getattr(form, "worked", None)
    if worked is None or worked.display is None:
        return {"worked": worked, "sides": None, "typed_notes": []}
    # A figure the player typed that is not the best play: said at once, beside the melds (legal
    # figures are stored as typed; the services refuse only what the cards cannot give).
    typed_notes = []
    if worked.complete:
        for name, best in zip(DEADWOOD_BOXES, (worked.knocker_deadwood, worked.defender_deadwood), strict=True):
            typed = str(form.data.get(name, "")).strip()
            if best is not None and numbers.whole_or_none(typed) not in (None, best):
                typed_notes.append(
                    labelled(
                        HAND_FIELD_LABELS[name],
                        _("you typed %(typed)s; best play %(best)s") % {"typed": typed, "best": best},
                    )
                )
    by_id = form.cleaned_data.get("by")
    by, other = game.player_one, game.player_two
    if by_id == game.player_two_id:
        by, other = other, by
    ending = form.cleaned_data.get("ending")
    sides = display_sides(worked.display, ending, by_name=by.name, other_name=other.name)
    return {"worked": worked, "sides": sides, "typed_notes": typed_notes}


def _hand_facts(form: HandForm, game: Game, rules) -> tuple[HandForm, dict | None]:
    """(form, facts to record) for a validated form; with cards, the deadwood comes from them.

    Facts are None (and the form carries the reason) when the picked cards cannot be used yet.
    """
    worked = _card_work(form, rules)
    if worked is None:
        return form, form.facts()
    form = _with_cards(form, worked, game, rules)
    if not worked.complete:
        form.add_refusal("cards", worked.problem)
        return form, None
    facts = form.facts()
    facts["cards"] = worked.cards
    return form, facts


@require_http_methods(["POST"])
@game_writer
def hand_cards(request, game: Game):
    """htmx: turn card entry on or off (the fields), or work out what the picked cards give.

    Working out answers with the deadwood boxes filled in and the melds and
    lay-offs as card faces, plus (on the scoresheet) the score preview.
    """
    rules = game.rule_set
    correcting = request.POST.get("correcting", "")
    # the correction form's hand ("²" or a number no hand has: 400 naming the field)
    number = numbers.whole_number(correcting, field="correcting", label=_("Hand"), low=1) if correcting else None
    hand = _hand_of(game, number) if number is not None else None
    form = (CorrectionForm if hand else HandForm)(request.POST, game=game, rules=rules)
    form.is_valid()
    live = bool(request.POST.get("live"))
    action = request.POST.get("action")
    form = _with_cards(form, _card_work(form, rules), game, rules)
    worked = getattr(form, "worked", None)
    text, ok, changes = "", False, []
    if action == "cards_off" or (worked is not None and worked.complete):
        # Also checks figures the player changed against the cards: a refusal shows next to its box.
        text, ok, changes = _preview_text(form, game, hand=hand, live=True)
    context = {"form": form, "game": game, "hand": hand, "live": live, **_card_context(form, game)}
    if action in ("cards_on", "cards_off"):
        response = render(request, "scoring/_hand_fields.html#fields", context)
    else:
        response = render(request, "scoring/_hand_fields.html#worked", context)
    if live:  # the preview follows: empty until the cards are complete, the typed hand's when they are put away
        preview = render(
            request,
            "scoring/game.html#preview",
            {"preview": text, "preview_ok": ok, "preview_changes": changes, "oob": True},
        )
        response.content += preview.content
    return response


# --- the scoresheet --------------------------------------------------------


def game_sheet(request, pk: int):
    card_mode = request.GET.get("cards") == "1"
    all_hands = request.GET.get("hands") == "all"
    game = _load_game(pk, request.user, hands=False)  # read only when its sheet is drawn anew
    context = sheet_context(request, game, card_mode=card_mode, all_hands=all_hands)
    return render(request, "scoring/game.html", context)


def game_history(request, pk: int):
    """Every game's history (its audit trail), league game or not: e.g. the version not kept after two phones."""
    game = _load_game(pk, request.user)
    return render(request, "scoring/game_history.html", {"game": game, "trail": game_audit_trail(game)})


def _left_blank(form: HandForm, field: str) -> bool:
    """The field named by an error was simply not filled in yet (rather than given wrong)."""
    names = ("upcard_rank", "upcard_suit") if field == "upcard" else (field,)
    return all(name in form.fields and not form.data.get(name) for name in names)


def _preview_text(
    form: HandForm, game: Game, *, hand: Hand | None = None, live: bool = False
) -> tuple[str, bool, list]:
    """(text, ok, changes): the preview of a valid form (a new hand, or ``hand`` corrected), or why it is refused.

    ``live`` (previewing while the hand is typed): a box not filled in yet is not an error, so
    nothing shows until the facts are complete; a wrong figure still shows at once.
    """
    if not form.is_valid():
        if "ending" in form.errors and not form.data.get("ending"):
            return ("" if live else _("Choose how the hand ended.")), False, []
        errors = [
            error
            for name, field_errors in form.errors.items()
            if not (live and _left_blank(form, name))
            for error in field_errors
        ]
        return " ".join(errors), False, []
    names = {player.pk: player.name for player in _players_of(game)}
    changes = []
    worked = getattr(form, "worked", None)
    cards = worked.cards if worked is not None and worked.complete else None  # the figures must fit them
    try:
        if hand is None:
            result = services.hand_preview(game=game, **form.facts(), cards=cards)
        else:
            result, changes = services.hand_edit_preview(hand=hand, **form.facts(), cards=cards)
    except HandRefused as refusal:
        if live and _left_blank(form, refusal.field):
            return "", False, []
        if cards is not None and refusal.field in DEADWOOD_BOXES:  # what the cards allow, next to the box too
            form.add_refusal(refusal.field, refusal.detail_text)
        label = HAND_FIELD_LABELS.get(refusal.field, refusal.field.replace("_", " ").capitalize())
        return refusal_text(label, refusal.detail_text), False, []
    return describe_result(result, names, hollywood=game.is_hollywood), True, changes


@require_POST
@game_writer
def hand_preview(request, game: Game):
    """htmx: the live preview of the hand being typed."""
    form = HandForm(request.POST, game=game, rules=game.rule_set)
    text, ok, _changes = _preview_text(form, game, live=True)
    return render(request, "scoring/game.html#preview", {"preview": text, "preview_ok": ok})


@require_POST
@game_writer
def hand_edit_preview(request, game: Game, number: int):
    """htmx: the live preview of a correction: the corrected hand and every total it moves."""
    hand = _hand_of(game, number, _board_asked(request, game))
    form = CorrectionForm(request.POST, game=game, rules=game.rule_set, pair=board_players(hand, game))
    text, ok, changes = _preview_text(form, game, hand=hand, live=True)
    context = {"preview": text, "preview_ok": ok, "preview_changes": changes}
    return render(request, "scoring/game.html#preview", context)


@require_POST
@game_writer(hands=False)  # a save reads them under the lock; the sheet of a refusal or a preview reads them once
def hand_submit(request, game: Game):
    rules = game.rule_set
    form = HandForm(request.POST, game=game, rules=rules)
    action = request.POST.get("action")
    if action != "save":
        with_hands(game)  # the preview and the sheet read them
    if action in CARD_ACTIONS:  # without JavaScript: card entry on/off, or work out the deadwood
        form.is_valid()
        form = _with_cards(form, _card_work(form, rules), game, rules)
        return _render_sheet(request, game, form=form)
    if action == "preview":
        form.is_valid()
        form = _with_cards(form, _card_work(form, rules), game, rules)
        text, ok, _changes = _preview_text(form, game)
        return _render_sheet(request, game, form=form, preview=text, preview_ok=ok)
    return _saved_once(
        request,
        perform=lambda: _record_hand(request, game, form, rules),
        replay=lambda stored: _replay_save(request, game, form, rules, stored),
    )


def _saved_once(request, *, perform, replay):
    """A page's save (a hand, a board): the form's key makes one sent again (no answer came: a dropped
    connection) happen once, ``replay`` answering the repeat; without a usable key it simply performs."""
    key = request.POST.get(SAVE_KEY_FIELD) or request.headers.get("Idempotency-Key")
    if not key or idempotency.key_problem(key, SAVE_KEY_FIELD):
        return perform()
    body = {name: values for name, values in request.POST.lists() if name != "csrfmiddlewaretoken"}
    return idempotency.once(
        user=request.user,
        key=key,
        method="POST",
        path=request.path,
        fingerprint=idempotency.request_hash("POST", request.path, {**body, "htmx": bool(request.htmx)}),
        perform=perform,
        keep=lambda response: (
            response.status_code,
            idempotency.storable({"saved": getattr(response, "saved_words", "")}),
        ),
        on_error=_raise,
        replay=replay,
    )


SAVE_KEY_FIELD = "idempotency_key"


def _board_form(request, game: Game, rules) -> BoardForm:
    """The posted board of a partnership deal, its "who went out" between that board's two players."""
    quartet = game_quartet(game)
    deal = numbers.whole_or_none(request.POST.get("deal", ""), low=1, high=numbers.BIGINT)
    board = request.POST.get("board")
    number = deal if deal is not None else 1
    pairs = board_pairs(rules, quartet, number)
    pair = pairs[1] if board == "2" else pairs[0]
    return BoardForm(request.POST, game=game, rules=rules, pair=pair, auto_id=f"id_b{2 if board == '2' else 1}_%s")


@require_POST
@game_writer
def board_preview(request, game: Game):
    """htmx: the live preview of a board being typed (what it scores; a wrong figure said at once)."""
    rules = game.rule_set
    if not rules.partnership:
        raise Http404(_("No such game"))
    form = _board_form(request, game, rules)
    text, ok = "", False
    if form.is_valid():
        data = form.cleaned_data
        try:
            result = services.board_preview(game=game, deal=data.get("deal"), board=data["board"], **form.facts())
        except HandRefused as refusal:
            if not _left_blank(form, refusal.field):
                label = HAND_FIELD_LABELS.get(refusal.field, refusal.field.replace("_", " ").capitalize())
                text = refusal_text(label, refusal.detail_text)
        else:
            names = {player.pk: player.name for player in game_quartet(game)}
            text, ok = describe_result(result, names), True
    else:
        text = " ".join(
            error for name, field_errors in form.errors.items() if not _left_blank(form, name) for error in field_errors
        )
    context = {"preview": text, "preview_ok": ok, "board": form.data.get("board")}
    return render(request, "scoring/_partnership.html#board_preview", context)


@require_POST
@game_writer
def board_submit(request, game: Game):
    """Record one board of a partnership deal (each board on its own, from one phone or from two; the deal
    settles when its second board arrives). Sent again with its form's key (no answer came), it is stored once."""
    rules = game.rule_set
    if not rules.partnership:
        raise Http404(_("No such game"))
    form = _board_form(request, game, rules)
    return _saved_once(
        request,
        perform=lambda: _record_board(request, game, form, rules),
        replay=lambda stored: _replay_board(request, game, form, rules, stored),
    )


def _replay_board(request, game: Game, form: BoardForm, rules, stored) -> HttpResponse:
    """The answer to a board sent again with its form's key: the first one's, never a second board."""
    saved = stored.response_body.get("saved")
    if not saved:
        return _record_board(request, game, form, rules)
    if request.htmx:
        return _render_sheet(request, _load_game(game.pk, request.user), saved=saved)
    messages.success(request, saved)
    return redirect("game", pk=game.pk)


def _record_board(request, game: Game, form: BoardForm, rules) -> HttpResponse:
    if not form.is_valid():
        return _render_sheet(request, game, form=form, status=422)
    data = form.cleaned_data
    try:
        hand = services.board_record(
            game=game,
            deal=data.get("deal"),
            board=data["board"],
            recorded_by=request.user,
            **form.facts(),
        )
    except HandConflict as conflict:
        # That board is already in (another phone), or its deal cannot be played yet: the sheet as it is
        # now says why, with the board forms of the deal really open.
        messages.error(request, refusal_text(_("Board"), conflict.detail_text))
        return _render_sheet(request, _load_game(game.pk, request.user), status=409)
    except HandRefused as refusal:
        form.add_refusal(refusal.field, refusal.detail_text)
        return _render_sheet(request, game, form=form, status=422)
    names = {player.pk: player.name for player in game_quartet(game)}
    saved = _("Deal %(number)s, board %(board)s saved: %(words)s") % {
        "number": hand.number,
        "board": hand.board,
        "words": _hand_words(hand, names),
    }
    if request.htmx:
        response = _render_sheet(request, _load_game(game.pk, request.user), saved=saved)
    else:
        messages.success(request, saved)
        response = redirect("game", pk=game.pk)
    response.saved_words = saved
    return response


def _raise(error: Exception):
    raise error


def _replay_save(request, game: Game, form: HandForm, rules, stored) -> HttpResponse:
    """The answer to a save sent again with its form's key: the first one's, never a second hand."""
    saved = stored.response_body.get("saved")
    if not saved:  # the first was refused and nothing was written: the repeat is judged afresh
        return _record_hand(request, game, form, rules)
    if request.htmx:
        return _render_sheet(request, _load_game(game.pk, request.user), saved=saved, card_mode=form.card_mode)
    messages.success(request, saved)
    return redirect(reverse("game", args=[game.pk]) + ("?cards=1" if form.card_mode else ""))


def _record_hand(request, game: Game, form: HandForm, rules) -> HttpResponse:
    if not form.is_valid():
        return _render_sheet(request, game, form=form, status=422)
    form, facts = _hand_facts(form, game, rules)
    if facts is None:
        return _render_sheet(request, game, form=form, status=422)
    try:
        hand = services.hand_record(
            game=game,
            recorded_by=request.user,
            expected_number=form.cleaned_data.get("expected_number"),
            **facts,
        )
    except HandConflict as conflict:
        fresh = _load_game(game.pk, request.user)
        data = request.POST.copy()
        data["expected_number"] = fresh.hand_count + 1
        form = HandForm(data, game=fresh, rules=rules)
        form.is_valid()
        form.add_refusal(conflict.field, conflict.detail_text)
        return _render_sheet(request, fresh, form=form, status=409)
    except HandRefused as refusal:
        form.add_refusal(refusal.field, refusal.detail_text)
        return _render_sheet(request, game, form=form, status=422)
    fresh = hand.game  # the game as written, with its hands and scores: no second read
    names = {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}
    saved = _("Hand %(number)s saved: %(words)s") % {"number": hand.number, "words": _hand_words(hand, names)}
    if request.htmx:  # the next hand is entered the same way as this one
        response = _render_sheet(request, fresh, saved=saved, card_mode=form.card_mode)
    else:
        messages.success(request, saved)
        response = redirect(reverse("game", args=[game.pk]) + ("?cards=1" if form.card_mode else ""))
    response.saved_words = saved  # what a repeat of this save (same key) is told
    return response


def _players_of(game: Game) -> tuple:
    """The game's players: two, or four in partnership gin."""
    return game_quartet(game) if game.rule_set.partnership else (game.player_one, game.player_two)


def _hand_words(hand: Hand, names: dict) -> str:
    return outcome_words(hand.result, names.get(hand.winner_id), hand.points) + "."


def _report_changes(request, heading: str, changes) -> None:
    messages.success(request, heading)
    if not changes:
        messages.info(request, _("No other figure changed."))
    for change in changes:
        messages.info(
            request,
            _("%(what)s: %(before)s → %(after)s")
            % {"what": change.what, "before": change.before, "after": change.after},
            extra_tags="change",
        )


def _hand_of(game: Game, number: int, board: int | None = None) -> Hand:
    """Hand ``number`` of the game; in a partnership game, board ``board`` of deal ``number``."""
    for hand in game.hands.all():
        if hand.number == number and hand.board == board:
            return hand
    raise Http404(_("No such hand"))


def _board_asked(request, game: Game) -> int | None:
    """The board a correction of a partnership game is about (``?board=`` or the form's ``board``); None for
    a two-handed game."""
    if not game.rule_set.partnership:
        return None
    text = request.GET.get("board") or request.POST.get("board") or ""
    return numbers.whole_number(text, field="board", label=_("Board"), low=1, high=2)


@require_POST
@game_writer
def hand_undo(request, game: Game):
    number = numbers.whole_or_none(request.POST.get("number", ""))
    if number is None or number != game.hand_count:
        messages.error(
            request, _("Hand number: the sheet changed since you looked; nothing was undone. Check it and try again.")
        )
        return redirect("game", pk=game.pk)
    hand = _hand_of(game, number)
    names = {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}
    try:
        changes = services.hand_remove(hand=hand, removed_by=request.user, reason=request.POST.get("reason", "")[:500])
    except Hand.DoesNotExist:
        messages.error(request, _("Hand number: that hand was already removed; nothing was undone."))
        return redirect("game", pk=game.pk)
    except HandRefused as refusal:
        # A confirmed result: the removal page has the box to say why.
        messages.error(request, refusal_text(_("Reason for the removal"), refusal.message_text))
        return redirect("hand_remove", pk=game.pk, number=number)
    undone = _("Undid hand %(number)s (%(words)s).") % {"number": number, "words": _hand_words(hand, names)[:-1]}
    _report_changes(request, undone, changes)
    return redirect("game", pk=game.pk)


@require_http_methods(["GET", "POST"])
@game_writer
def hand_edit(request, game: Game, number: int):
    hand = _hand_of(game, number, _board_asked(request, game))
    rules = game.rule_set
    pair = board_players(hand, game)
    status = 200
    if request.method == "POST":
        form = CorrectionForm(request.POST, game=game, rules=rules, pair=pair)
        if request.POST.get("action") in CARD_ACTIONS:  # without JavaScript: card entry on/off, work it out
            form.is_valid()
            form = _with_cards(form, _card_work(form, rules), game, rules)
        elif form.is_valid():
            form, facts = _hand_facts(form, game, rules)
            if facts is not None:
                facts.setdefault("cards", None)  # typed deadwood: any stored cards no longer apply
                try:
                    changes = services.hand_edit(hand=hand, edited_by=request.user, reason=form.reason_text(), **facts)
                except HandRefused as refusal:
                    form.add_refusal(refusal.field, refusal.detail_text)
                else:
                    _report_changes(request, _("Hand %(number)s corrected.") % {"number": number}, changes)
                    return redirect("game", pk=game.pk)
            status = 422
        else:
            status = 422
    else:
        initial = hand_initial(hand)
        if request.GET.get("cards") == "1":
            initial["entry"] = "cards"
        form = CorrectionForm(game=game, rules=rules, initial=initial, pair=pair)
        if form.card_mode and hand.cards and pair is None:  # show the stored hand's melds straight away
            form = CorrectionForm(as_form_data(initial), game=game, rules=rules)
            form.is_valid()
            worked = _card_work(form, rules)
            if worked is not None:  # a stored figure that was the best play follows the cards; another stays put
                for name, best in zip(DEADWOOD_BOXES, (worked.knocker_deadwood, worked.defender_deadwood), strict=True):
                    form.data[f"filled_{name}"] = "" if best is None else str(best)
            form = _with_cards(form, worked, game, rules)
    context = {
        "game": game,
        "hand": hand,
        "form": form,
        "rules": rules,
        "live": True,
        "pair": pair and [player.name for player in pair],
        **_card_context(form, game),
    }
    return render(request, "scoring/hand_edit.html", context, status=status)


@require_http_methods(["GET", "POST"])
@game_writer
def hand_remove(request, game: Game, number: int):
    hand = _hand_of(game, number, _board_asked(request, game))
    names = {player.pk: player.name for player in _players_of(game)}
    form = RemovalForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                changes = services.hand_remove(hand=hand, removed_by=request.user, reason=form.cleaned_data["reason"])
            except Hand.DoesNotExist:
                messages.error(request, _("Hand number: that hand was already removed."))
                return redirect("game", pk=game.pk)
            except HandRefused as refusal:
                form.add_refusal(refusal.field, refusal.detail_text)
            else:
                removed = _("Hand %(number)s removed; later hands moved up one.") % {"number": number}
                _report_changes(request, removed, changes)
                return redirect("game", pk=game.pk)
        status = 422
    context = {
        "game": game,
        "hand": hand,
        "form": form,
        "words": _hand_words(hand, names),
        "later": game.hand_count - number,
    }
    return render(request, "scoring/hand_remove.html", context, status=status)


# --- merging player records ------------------------------------------------


@require_http_methods(["GET", "POST"])
def player_merge(request):
    """Staff, and a club's admins for their guests: two records of one person become one."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    players = mergeable_players(request.user)
    if not players.exists():
        raise PermissionDenied(_("Only staff and clubs' owners and admins merge player records."))
    form = PlayerMergeForm(request.POST if request.method == "POST" else None, players=players)
    if request.method == "POST" and form.is_valid():
        keep, drop = form.cleaned_data["keep"], form.cleaned_data["drop"]
        if refusal := merge_refusal(request.user, keep, drop):
            form.add_error("drop", _("Merge into it: %(refusal)s") % {"refusal": refusal})
        else:
            try:
                result = player_merge_service(keep=keep, drop=drop, merged_by=request.user)
            except ValidationError as error:
                for message in error.message_dict.get("drop", error.messages):
                    form.add_error("drop", message)
            else:
                merged = ngettext(
                    "%(dropped)s merged into %(kept)s: %(count)s game moved, each with a line in its history.",
                    "%(dropped)s merged into %(kept)s: %(count)s games moved, each with a line in its history.",
                    result.games,
                ) % {"dropped": result.dropped_name, "kept": keep.name, "count": result.games}
                messages.success(request, merged)
                return redirect(reverse("stats:player", args=[keep.pk]))
    status = 422 if form.errors else 200
    return render(request, "scoring/player_merge.html", {"form": form}, status=status)


# --- starting games --------------------------------------------------------


def _rules_summary(rules) -> dict:
    """The new-game form's "These rules" line: the preset and every rule it changes (Hollywood too),
    as the sheet's rules line says them, then the whole list."""
    return {
        "checked_rules": rules.describe() if rules else None,
        "checked_preset": preset_label(rules.preset) if rules else "",
        "checked_overrides": rules.describe_overrides() if rules else [],
    }


def _new_game_context(request, form: NewGameForm, recent: list[Sitting]) -> dict:
    rules = form.cleaned_data.get("rules") if form.is_bound and hasattr(form, "cleaned_data") else None
    # The page's every form and base.html's htmx headers share one token, as the context processor's would.
    csrf_token = get_token(request)
    recent_words = [
        {
            "pk": game.pk,
            "sides": _sides_named(game),
            "preset": game.preset,
            "rule_set": game.rule_set,
        }
        for game in recent
    ]
    return {
        "form": form,
        "csrf_token": csrf_token,
        "fields": new_game_fields(form),
        "player_options": player_options(player_names()),
        "recent_items": recent_items(recent_words, csrf_token=csrf_token),
        **_rules_summary(rules),
    }


def _sides_named(game: Game | Sitting) -> tuple[str, str]:
    """The two sides of a game as its lists name them: two players, or two partnerships ("Ann & Cat")."""
    if game.player_three_id is None:
        return game.player_one.name, game.player_two.name
    names = {player.pk: player.name for player in game_quartet(game)}
    return tuple(side_name(names, side) for side in sides_of(tuple(names)))


@require_http_methods(["GET", "POST"])
def game_new(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    recent = recent_sittings(request.user)
    if request.method == "GET":
        initial = {}
        source = None
        if request.GET.get("from"):
            number = numbers.whole_or_none(request.GET["from"], low=1, high=numbers.BIGINT)
            source = _load_game(number, request.user) if number is not None else None
        elif recent:
            source = recent[0]
        if source is not None:
            initial = new_game_initial(source)
            if not request.GET.get("from"):  # last rules, but pick the players afresh
                for seat in SEATS:
                    initial.pop(f"player_{seat}", None)
        form = NewGameForm(initial=initial)
        return render(request, "scoring/game_new.html", _new_game_context(request, form, recent))

    form = NewGameForm(request.POST)
    if request.POST.get("action") == "check" or not form.is_valid():
        form.is_valid()
        status = 200 if request.POST.get("action") == "check" and form.is_valid() else 422
        return render(request, "scoring/game_new.html", _new_game_context(request, form, recent), status=status)
    data = form.cleaned_data
    seats = SEATS if data["rules"].partnership else SEATS[:2]
    players = {}
    for seat in seats:
        try:
            players[seat] = player_get_or_create(name=data[f"player_{seat}"], created_by=request.user)
        except ValidationError as error:
            form.add_error(f"player_{seat}", labelled(form.fields[f"player_{seat}"].label, " ".join(error.messages)))
    if not form.errors:
        try:
            game = services.game_create(
                player_one=players["one"],
                player_two=players["two"],
                player_three=players.get("three"),
                player_four=players.get("four"),
                first_dealer=players.get(data["first_dealer"], players["one"]),
                rules=data["rules"],
                created_by=request.user,
            )
        except HandRefused as refusal:
            field = refusal.field if refusal.field in form.fields else f"rule_{refusal.field}"
            form.add_error(field if field in form.fields else None, refusal.message_text)
        else:
            return redirect("game", pk=game.pk)
    return render(request, "scoring/game_new.html", _new_game_context(request, form, recent), status=422)


@require_POST
def rules_check(request):
    """htmx: the rules of the new-game form in plain words, as chosen so far."""
    form = NewGameForm(request.POST)
    form.is_valid()
    rules = form.cleaned_data.get("rules")
    errors = [
        error
        for name, field_errors in form.errors.items()
        if name.startswith(("rule_", "preset"))
        for error in field_errors
    ]
    context = {**_rules_summary(rules), "rule_errors": errors}
    return render(request, "scoring/game_new.html#rules_summary", context)


@require_POST
@game_writer
def play_again(request, game: Game):
    """A new sitting: same players, same rules, the dealer carried on."""
    rules = game.rule_set
    if rules.partnership:  # the side that did not deal the first deal deals first now
        one, two, _three, _four = game_quartet(game)
        first_side = sides_of(game_quartet(game))[0]
        new = services.game_create(
            player_one=game.player_one,
            player_two=game.player_two,
            player_three=game.player_three,
            player_four=game.player_four,
            first_dealer=two if game.first_dealer in first_side else one,
            rules=rules,
            created_by=request.user,
        )
    else:
        _hands, session = game_session(game, rules)
        dealer_pk = dealer_after(rules, (game.player_one_id, game.player_two_id), game.first_dealer_id, session.hands)
        new = services.game_create(
            player_one=game.player_one,
            player_two=game.player_two,
            first_dealer=game.player_one if dealer_pk == game.player_one_id else game.player_two,
            rules=rules,
            created_by=request.user,
        )
    one_name, two_name = _sides_named(game)
    messages.success(request, _("New game: %(one)s v %(two)s, same rules.") % {"one": one_name, "two": two_name})
    return redirect(reverse("game", kwargs={"pk": new.pk}))
