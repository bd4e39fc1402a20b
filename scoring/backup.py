"""Whole-install backups: every row a club needs, in one versioned JSON file, and its restore.

The file keeps primary keys (links, bookmarks and game ids stay valid) and refers to
accounts, permissions and content types by natural key, so it moves between SQLite and
PostgreSQL. Restore goes into an empty, migrated database only; it writes the facts and
the stored figures, then recomputes every game with the engine (``game_recompute``) in
the same transaction, keeps each game's ``updated_at`` and ``change_count``, and says if any figure moved.

Left out on purpose: API tokens (a live credential in plain text: owners of scripts make
a new one after a restore), invitation links not yet used (likewise a live credential: whoever
holds one joins the club), sessions (everyone signs in again), the API's idempotency replays
and the sign-in lockout logs (both short-lived).

Restore trusts nothing in the file: it takes only the models a backup writes (and of invitations only
used ones), one row per key, fields each model has, password hashes, and rules and hands the engine
can score, before it writes anything; then each row passes its model's own validation (``full_clean``) as it is
written. The first fault is named (model, key, field) in one line and nothing is kept. A file
whose digest does not match its content (edited, or cut short) is restored only when forced.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from django.apps import apps
from django.contrib.auth.hashers import identify_hasher
from django.core import serializers
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, DataError, IntegrityError, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Model, Q

from scoring.engine.card_facts import CardFactError, check_facts
from scoring.engine.partnership import score_partnership
from scoring.engine.rules import RuleError, resolve_rules
from scoring.engine.score import HandError, HandFacts, board_place, score_session
from scoring.models import Game, GameScore, Hand
from scoring.services import game_recompute

FORMAT = "ginleague-backup"
VERSION = 1
# Apps whose every model is kept, and single models kept from Django's own apps.
WHOLE_APPS = ("players", "scoring")
EXTRA_MODELS = ("auth.Group", "auth.User", "admin.LogEntry")
# Replays of recent API writes (not data), and the standings lines and totals, the seasons' counts of changes
# to their results and partnership deals (derived: game_recompute writes them again).
LEFT_OUT = {
    "scoring.IdempotentRequest",
    "scoring.StandingLine",
    "scoring.StandingTotal",
    "scoring.SeasonResults",
    "scoring.Deal",
}
# Rows a freshly migrated install may already hold; restore replaces them.
REPLACEABLE = {"players.SiteSettings"}
# Only some rows of a model, those whose field is set: an invitation link not yet used is a live credential
# (whoever holds it joins the club), so only used ones (the club's history) are kept, and restore refuses
# any other (written in by hand, it would revive a working link).
ROWS_KEPT = {"players.Invitation": ("accepted_at", "an invitation link not yet used")}
CHUNK = 2000
# The header keys the digest covers, with every row as written.
DIGESTED = ("format", "version", "written_at", "database", "migrations", "counts")


class _Encoder(DjangoJSONEncoder):
    """Django's JSON, but times to the microsecond (Django's own encoder keeps milliseconds):
    games are ordered and versioned by their times, which must come back exactly."""

    def default(self, o):
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


class BackupError(Exception):
    """A backup that cannot be restored here; the message says why and what to do."""


class _Digest:
    """SHA-256 of a backup's rows, each as its JSON text, then of its header: the same text whether
    taken while writing (rows as serialized) or after reading (rows as parsed), so an edited or cut
    file shows. It detects a changed file, not a forger who recomputes it: restore still checks every row."""

    def __init__(self):
        self._hash = hashlib.sha256()

    def row(self, text: str) -> None:
        self._hash.update(text.encode() + b"\n")

    def result(self, header: dict[str, Any]) -> str:
        self._hash.update(json.dumps({key: header.get(key) for key in DIGESTED}, sort_keys=True).encode())
        return "sha256:" + self._hash.hexdigest()


@dataclass
class RestoreReport:
    rows: dict[str, int] = field(default_factory=dict)
    games_recomputed: int = 0
    games_changed: list[int] = field(default_factory=list)  # ids whose stored figures the engine corrected


def backed_up_models() -> list[type[Model]]:
    """Every model in the backup, each after the models it points at (so a restore writes in order)."""
    chosen = [apps.get_model(label) for label in EXTRA_MODELS]
    for app_label in WHOLE_APPS:
        chosen += [
            model
            for model in apps.get_app_config(app_label).get_models()
            if model._meta.label not in LEFT_OUT and not model._meta.proxy
        ]
    ordered: list[type[Model]] = []
    remaining = list(chosen)
    while remaining:
        for model in remaining:
            targets = {
                relation.related_model
                for relation in model._meta.get_fields()
                if (relation.many_to_one or relation.one_to_one or relation.many_to_many) and relation.concrete
            }
            if all(target in ordered or target is model or target not in chosen for target in targets):
                ordered.append(model)
                remaining.remove(model)
                break
        else:  # a cycle between models: fine, the database checks links at commit
            ordered += remaining
            break
    return ordered


def _applied_migrations(using: str) -> dict[str, list[str]]:
    applied: dict[str, list[str]] = {}
    for app_label, name in MigrationRecorder(connections[using]).applied_migrations():
        applied.setdefault(app_label, []).append(name)
    return {app_label: sorted(names) for app_label, names in sorted(applied.items())}


def _rows(model: type[Model], using: str) -> Iterator[dict[str, Any]]:
    queryset = model._default_manager.using(using).order_by("pk")
    if model._meta.label in ROWS_KEPT:
        queryset = queryset.filter(Q(**{f"{ROWS_KEPT[model._meta.label][0]}__isnull": False}))
    many = [relation.name for relation in model._meta.many_to_many]
    if many:
        queryset = queryset.prefetch_related(*many)
    chunk: list[Model] = []
    for row in queryset.iterator(chunk_size=CHUNK):
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield from serializers.serialize("python", chunk, use_natural_foreign_keys=True)
            chunk = []
    yield from serializers.serialize("python", chunk, use_natural_foreign_keys=True)


def backup_write(*, out: IO[str], using: str = DEFAULT_DB_ALIAS) -> dict[str, int]:
    """Write the whole install to ``out`` as one JSON document; return the rows written per model.

    Read in one transaction, so a game saved meanwhile is either wholly in or wholly out.
    """
    counts: dict[str, int] = {}
    digest = _Digest()
    with transaction.atomic(using=using):
        header = {
            "format": FORMAT,
            "version": VERSION,
            "written_at": datetime.datetime.now(datetime.UTC).isoformat(),
            "database": connections[using].vendor,
            "migrations": _applied_migrations(using),
        }
        out.write(json.dumps(header, indent=1)[:-2] + ',\n "objects": [')
        first = True
        for model in backed_up_models():
            counts[model._meta.label] = 0
            for row in _rows(model, using):
                text = json.dumps(row, cls=_Encoder, ensure_ascii=False)
                digest.row(text)
                out.write(("\n  " if first else ",\n  ") + text)
                first = False
                counts[model._meta.label] += 1
        out.write("\n ],\n")
        out.write(' "counts": ' + json.dumps(counts) + ",\n")
        out.write(' "digest": ' + json.dumps(digest.result({**header, "counts": counts})) + "\n}\n")
    return counts


def _read(source: IO[str]) -> dict[str, Any]:
    try:
        document = json.load(source)
    except (ValueError, UnicodeDecodeError) as error:
        raise BackupError(f"This is not a GinLeague backup (not JSON: {error}).") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError("This is not a GinLeague backup (no \"format\": \"ginleague-backup\").")
    if document.get("version") != VERSION:
        found = document.get("version")
        raise BackupError(f"This backup is version {found!r}; this GinLeague reads version {VERSION}.")
    if not isinstance(document.get("objects"), list):
        raise BackupError('This backup has no "objects" list.')
    return document


def _check_schema(document: dict[str, Any], using: str) -> None:
    applied = _applied_migrations(using)
    executor = MigrationExecutor(connections[using])
    if not applied or executor.migration_plan(executor.loader.graph.leaf_nodes()):
        raise BackupError("The database is not migrated: run `manage.py migrate` first, then restore.")
    for app_label, names in document.get("migrations", {}).items():
        missing = sorted(set(names) - set(applied.get(app_label, [])))
        if missing and app_label in (*WHOLE_APPS, "auth", "admin", "contenttypes"):
            raise BackupError(
                f"The backup was written by a newer GinLeague (migration {app_label} {missing[-1]} is not applied "
                "here): install that version and run `manage.py migrate`, then restore."
            )


def _check_empty(using: str) -> None:
    held = {
        model._meta.label: model._default_manager.using(using).count()
        for model in backed_up_models()
        if model._meta.label not in REPLACEABLE
    }
    held = {label: count for label, count in held.items() if count}
    if held:
        listed = ", ".join(f"{count} {label}" for label, count in held.items())
        raise BackupError(
            f"The database is not empty ({listed}). Restore only into a new, migrated database; "
            "nothing was changed."
        )


def _reset_sequences(models: Iterable[type[Model]], using: str) -> None:
    """After rows with explicit ids, new rows must not reuse them (PostgreSQL; SQLite follows max(id))."""
    connection = connections[using]
    statements = connection.ops.sequence_reset_sql(no_style(), list(models))
    if statements:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)


def _figures(game: Game) -> tuple:
    return (
        tuple(Game.objects.filter(pk=game.pk).values_list("over", "winner", "margin", "next_dealer", "hand_count")),
        tuple(Hand.objects.filter(game=game).order_by("number", "board").values_list(
            "number", "board", "dealer", "result", "winner", "points", "boxes", "doubled", "scored_in"
        )),
        tuple(GameScore.objects.filter(game=game).order_by("number").values_list(
            "number", "player_one_hand_points", "player_two_hand_points", "player_one_boxes", "player_two_boxes",
            "over", "winner", "player_one_final", "player_two_final", "margin", "closed_by_hand",
        )),
    )  # fmt: skip


def _check_digest(document: dict[str, Any], *, force: bool) -> None:
    written = document.get("digest")
    digest = _Digest()
    for row in document["objects"]:
        digest.row(json.dumps(row, ensure_ascii=False))
    if written == digest.result(document) or force:
        return
    why = (
        "carries no digest, so nothing shows that it is as `manage.py backup` wrote it"
        if written is None
        else "does not match its digest: it was changed (or cut short) after `manage.py backup` wrote it"
    )
    raise BackupError(
        f"This backup {why}. Restore it anyway with --force (every row is still checked). Nothing was restored."
    )


def _where(label: str, pk: Any, field: str | None = None) -> str:
    """How a refusal names a row: model, key and, when known, field."""
    return f"{label} {pk}" + (f", field {field}" if field else "")


def _refuse(label: str, pk: Any, field: str | None, message: str) -> BackupError:
    return BackupError(f"{_where(label, pk, field)}: {message} Nothing was restored.")


def _check_rows(rows: list[Any]) -> None:
    """Before anything is written: only rows a backup writes, one per key, with their models' fields,
    password hashes only, and rules and hands the engine scores (all in the file's own terms)."""
    models = {model._meta.label_lower: model for model in backed_up_models()}
    seen: dict[tuple[str, Any], int] = {}
    games: dict[Any, dict[str, Any]] = {}
    hands: dict[Any, list[tuple[Any, dict[str, Any]]]] = {}
    for index, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not isinstance(row.get("fields"), dict):
            raise BackupError(f"Row {index} of the backup is not a model row. Nothing was restored.")
        label, pk, fields = row.get("model"), row.get("pk"), row["fields"]
        model = models.get(label) if isinstance(label, str) else None
        if model is None:
            raise BackupError(
                f"Row {index} is of model {label}, which a backup never holds (it holds only "
                f"{', '.join(sorted(models))}). Nothing was restored."
            )
        if pk is None or isinstance(pk, dict | list):
            raise _refuse(label, pk, "pk", f"row {index} has no key.")
        if (label, pk) in seen:
            raise _refuse(label, pk, None, f"appears twice (rows {seen[label, pk]} and {index}).")
        seen[label, pk] = index
        known = {field.name for field in model._meta.concrete_fields} | {
            field.name for field in model._meta.many_to_many
        }
        for name, value in fields.items():
            if name not in known or name == model._meta.pk.name:
                raise _refuse(label, pk, name, f"{model._meta.object_name} has no such field.")
            _check_value(label, pk, model._meta.get_field(name), value)
        if model._meta.label in ROWS_KEPT:
            kept_when, refused = ROWS_KEPT[model._meta.label]
            if fields.get(kept_when) is None:
                raise _refuse(label, pk, kept_when, f"{refused}, which a backup never holds.")
        if label == "auth.user":
            _check_password(label, pk, fields.get("password"))
        if label == "scoring.season":
            _check_rules(label, pk, fields.get("rules"))
        if label == "scoring.game":
            games[pk] = fields
        if label == "scoring.hand":
            hands.setdefault(fields.get("game"), []).append((pk, fields))
    _check_links(rows, models, set(seen))
    for pk, fields in games.items():
        _check_game(pk, fields, hands.get(pk, []))


# Rows other rows point at by natural key (the field that holds it), as the backup writes them.
NATURAL_KEYS = {"auth.user": "username", "auth.group": "name"}


def _links(model: type[Model], models: dict[str, type[Model]]) -> list[tuple[str, str]]:
    """(field, model it points at) for each link of ``model`` to a model the backup holds."""
    return [
        (field.name, field.related_model._meta.label_lower)
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model._meta.label_lower in models
    ]


def _check_links(rows: list[dict[str, Any]], models: dict[str, type[Model]], keys: set[tuple[str, Any]]) -> None:
    """Every link points at a row of the file (in memory: a query per link made restores three times slower)."""
    keys = keys | {
        (label, (row["fields"].get(NATURAL_KEYS[label]),))
        for row in rows
        if (label := row["model"]) in NATURAL_KEYS
    }
    links = {label: _links(model, models) for label, model in models.items()}
    for row in rows:
        label, fields = row["model"], row["fields"]
        for name, target in links[label]:
            value = fields.get(name)
            key = tuple(value) if isinstance(value, list) else value
            if value is not None and (target, key) not in keys:
                raise _refuse(label, row["pk"], name, f"points at {target} {value}, which the backup does not hold.")


def _check_value(label: str, pk: Any, field, value: Any) -> None:
    """A value its field can read (a time that is a time, a number that is a number), named if not."""
    if field.is_relation or value is None:
        return
    if isinstance(value, str) and "\x00" in value:  # no page or API takes it; PostgreSQL cannot store it
        raise _refuse(label, pk, field.name, "text may not contain the NUL character.")
    try:
        field.to_python(value)
    except ValidationError as error:
        raise _refuse(label, pk, field.name, " ".join(error.messages)) from None


def _check_password(label: str, pk: Any, password: Any) -> None:
    if not isinstance(password, str):
        raise _refuse(label, pk, "password", "is not text.")
    if password.startswith("!"):  # an account that signs in another way (an unusable password)
        return
    try:
        identify_hasher(password)
    except ValueError:
        message = "is not a password hash (a backup never holds a password itself)."
        raise _refuse(label, pk, "password", message) from None


def _check_rules(label: str, pk: Any, rules: Any):
    try:
        return resolve_rules(rules)
    except RuleError as error:
        raise _refuse(label, pk, "rules", f"{error.message}.") from None


def _is_key(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_game(pk: Any, fields: dict[str, Any], rows: list[tuple[Any, dict[str, Any]]]) -> None:
    """The game's hands, as the engine would score them, numbered 1 to N; cards that fit their facts."""
    rules = _check_rules("scoring.game", pk, fields.get("rules"))
    for name in ("player_one", "player_two", "first_dealer"):
        if not _is_key(fields.get(name)):
            raise _refuse("scoring.game", pk, name, "must be a player's id.")
    for hand_pk, hand in rows:
        if isinstance(hand.get("number"), bool) or not isinstance(hand.get("number"), int):
            raise _refuse("scoring.hand", hand_pk, "number", "must be a whole number.")
        if hand.get("by") is not None and not _is_key(hand["by"]):
            raise _refuse("scoring.hand", hand_pk, "by", "must be a player's id.")
        if not isinstance(hand.get("upcard") or "", str):
            raise _refuse("scoring.hand", hand_pk, "upcard", "must be a card such as 7S.")
    if fields.get("player_three") is not None or fields.get("player_four") is not None:
        _check_partnership(pk, fields, rules, rows)
        return
    rows = sorted(rows, key=lambda pair: pair[1]["number"])
    for expected, (hand_pk, hand) in enumerate(rows, start=1):
        if hand["number"] != expected:
            message = f"game {pk} has no hand {expected} before hand {hand['number']}."
            raise _refuse("scoring.hand", hand_pk, "number", message)
    facts = [
        HandFacts(
            ending=hand.get("ending"),
            by=hand.get("by"),
            knocker_deadwood=hand.get("knocker_deadwood"),
            defender_deadwood=hand.get("defender_deadwood"),
            upcard=hand.get("upcard") or None,
        )
        for _, hand in rows
    ]
    players = (fields.get("player_one"), fields.get("player_two"))
    try:
        score_session(rules, players, fields.get("first_dealer"), facts, fields.get("time_called_after"))
    except HandError as error:
        if error.hand is None:
            raise _refuse("scoring.game", pk, error.field, f"{error.message}.") from None
        hand_pk = rows[error.hand - 1][0]
        where = f"scoring.hand {hand_pk} (game {pk}, hand {error.hand}), field {error.field}"
        raise BackupError(f"{where}: {error.message}. Nothing was restored.") from None
    for (hand_pk, hand), fact in zip(rows, facts, strict=True):
        if hand.get("cards") is None:
            continue
        try:
            check_facts(rules, fact, hand["cards"])
        except CardFactError as error:
            raise _refuse("scoring.hand", hand_pk, error.field, f"{error.message}.") from None


def _check_partnership(pk: Any, fields: dict[str, Any], rules, rows: list[tuple[Any, dict[str, Any]]]) -> None:
    """A partnership game's boards (docs/rules.md, "Partnership gin"), as the engine would score them."""
    for name in ("player_three", "player_four"):
        if not _is_key(fields.get(name)):
            raise _refuse("scoring.game", pk, name, "must be a player's id.")
    deals: list[list[HandFacts | None]] = []
    placed: dict[tuple[int, int], Any] = {}
    for hand_pk, hand in sorted(rows, key=lambda pair: (pair[1]["number"], pair[1].get("board") or 0)):
        number, board = hand["number"], hand.get("board")
        if board not in (1, 2) or number < 1 or (number, board) in placed:
            raise _refuse("scoring.hand", hand_pk, "board", f"game {pk} needs board 1 or 2 once per deal.")
        placed[number, board] = hand_pk
        while len(deals) < number:
            deals.append([None, None])
        deals[number - 1][board - 1] = HandFacts(
            ending=hand.get("ending"),
            by=hand.get("by"),
            knocker_deadwood=hand.get("knocker_deadwood"),
            defender_deadwood=hand.get("defender_deadwood"),
            upcard=hand.get("upcard") or None,
        )
        if hand.get("cards") is not None:
            try:
                check_facts(rules, deals[number - 1][board - 1], hand["cards"])
            except CardFactError as error:
                raise _refuse("scoring.hand", hand_pk, error.field, f"{error.message}.") from None
    players = tuple(fields.get(name) for name in ("player_one", "player_two", "player_three", "player_four"))
    try:
        score_partnership(rules, players, fields.get("first_dealer"), deals)
    except HandError as error:
        if error.hand is None:
            raise _refuse("scoring.game", pk, error.field, f"{error.message}.") from None
        hand_pk = placed.get((error.hand, error.board or 1), "?")
        where = f"scoring.hand {hand_pk} (game {pk}, hand {board_place(error.hand, error.board)}), field {error.field}"
        raise BackupError(f"{where}: {error.message}. Nothing was restored.") from None


@functools.cache
def _backed_up_labels() -> frozenset[str]:
    return frozenset(model._meta.label for model in backed_up_models())


def _in_backup(field) -> bool:
    return field.related_model._meta.label in _backed_up_labels()


def _save_checked(restored: serializers.base.DeserializedObject, using: str) -> None:
    """Write one row after its model's own validation (``full_clean``); the fault names model, key and field."""
    row = restored.object
    label, pk = row._meta.label_lower, row.pk
    # Links were checked in memory (_check_links) and the database checks its own constraints as the row
    # is written: asking both again here, a query each, made a restore three times slower.
    links = [field.name for field in row._meta.concrete_fields if field.is_relation and _in_backup(field)]
    deferred = [field.name for field in (restored.deferred_fields or {})]
    try:
        row.full_clean(exclude=[*links, *deferred], validate_constraints=False)
    except ValidationError as error:
        field, messages = next(iter(error.message_dict.items()))
        raise _refuse(label, pk, None if field == "__all__" else field, " ".join(messages)) from None
    try:  # what full_clean cannot see (a key the database refuses): the whole restore rolls back
        restored.save(using=using)
    except (IntegrityError, DataError, ValueError, OverflowError) as error:
        reason = (str(error).splitlines() or [type(error).__name__])[0]  # PostgreSQL adds a DETAIL line
        raise _refuse(label, pk, None, f"cannot be stored ({reason}).") from None


def backup_restore(*, source: IO[str], using: str = DEFAULT_DB_ALIAS, force: bool = False) -> RestoreReport:
    """Load a backup into an empty, migrated database, all or nothing (BackupError says why not).

    ``force`` restores a file whose digest does not match (every row is checked all the same).
    """
    document = _read(source)
    _check_digest(document, force=force)
    _check_schema(document, using)
    _check_rows(document["objects"])
    report = RestoreReport()
    models = backed_up_models()
    with transaction.atomic(using=using):
        _check_empty(using)
        for label in REPLACEABLE:
            apps.get_model(label)._default_manager.using(using).all().delete()
        updated_at: dict[int, Any] = {}  # and change_count: the game's version, as the backup holds it
        deferred = []
        try:
            for restored in serializers.deserialize(
                "python", document["objects"], using=using, handle_forward_references=True
            ):
                _save_checked(restored, using)
                if restored.deferred_fields:
                    deferred.append(restored)
                label = restored.object._meta.label
                report.rows[label] = report.rows.get(label, 0) + 1
                if isinstance(restored.object, Game):
                    updated_at[restored.object.pk] = (restored.object.updated_at, restored.object.change_count)
            for restored in deferred:  # links to rows later in the file, set now that those are written
                restored.save_deferred_fields(using=using)
        except serializers.base.DeserializationError as error:
            raise BackupError(f"The backup could not be read: {error}. Nothing was restored.") from None
        _reset_sequences(models, using)
        games = Game.objects.using(using).select_related("player_one", "player_two").order_by("pk")
        for game in games.iterator(chunk_size=500):
            before = _figures(game)
            game_recompute(game=game)
            stamp, change_count = updated_at[game.pk]
            Game.objects.using(using).filter(pk=game.pk).update(updated_at=stamp, change_count=change_count)
            report.games_recomputed += 1
            if _figures(game) != before:
                report.games_changed.append(game.pk)
        transaction.on_commit(cache.clear, using=using)  # cached standings of the old install
    return report
