"""Whole-install backups: every row a club needs, in one versioned JSON file, and its restore.

The file keeps primary keys (links, bookmarks and game ids stay valid) and refers to
accounts, permissions and content types by natural key, so it moves between SQLite and
PostgreSQL. Restore goes into an empty, migrated database only; it writes the facts and
the stored figures, then recomputes every game with the engine (``game_recompute``) in
the same transaction, keeps each game's ``updated_at``, and says if any figure moved.

Left out on purpose: API tokens (a live credential in plain text: owners of scripts make
a new one after a restore), sessions (everyone signs in again), the API's idempotency
replays and the sign-in lockout logs (both short-lived).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from django.apps import apps
from django.core import serializers
from django.core.cache import cache
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Model

from scoring.models import Game, GameScore, Hand
from scoring.services import game_recompute

FORMAT = "ginleague-backup"
VERSION = 1
# Apps whose every model is kept, and single models kept from Django's own apps.
WHOLE_APPS = ("players", "scoring")
EXTRA_MODELS = ("auth.Group", "auth.User", "admin.LogEntry")
# Replays of recent API writes (not data), and the standings lines and totals (derived: game_recompute
# writes them again).
LEFT_OUT = {"scoring.IdempotentRequest", "scoring.StandingLine", "scoring.StandingTotal"}
# Rows a freshly migrated install may already hold; restore replaces them.
REPLACEABLE = {"players.SiteSettings"}
CHUNK = 2000


class _Encoder(DjangoJSONEncoder):
    """Django's JSON, but times to the microsecond (Django's own encoder keeps milliseconds):
    games are ordered and versioned by their times, which must come back exactly."""

    def default(self, o):
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


class BackupError(Exception):
    """A backup that cannot be restored here; the message says why and what to do."""


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
                out.write(("\n  " if first else ",\n  ") + json.dumps(row, cls=_Encoder, ensure_ascii=False))
                first = False
                counts[model._meta.label] += 1
        out.write("\n ],\n")
        out.write(' "counts": ' + json.dumps(counts) + "\n}\n")
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
        tuple(Hand.objects.filter(game=game).order_by("number").values_list(
            "number", "dealer", "result", "winner", "points", "boxes", "doubled", "scored_in"
        )),
        tuple(GameScore.objects.filter(game=game).order_by("number").values_list(
            "number", "player_one_hand_points", "player_two_hand_points", "player_one_boxes", "player_two_boxes",
            "over", "winner", "player_one_final", "player_two_final", "margin", "closed_by_hand",
        )),
    )  # fmt: skip


def backup_restore(*, source: IO[str], using: str = DEFAULT_DB_ALIAS) -> RestoreReport:
    """Load a backup into an empty, migrated database, all or nothing (BackupError says why not)."""
    document = _read(source)
    _check_schema(document, using)
    report = RestoreReport()
    models = backed_up_models()
    with transaction.atomic(using=using):
        _check_empty(using)
        for label in REPLACEABLE:
            apps.get_model(label)._default_manager.using(using).all().delete()
        updated_at: dict[int, Any] = {}
        deferred = []
        try:
            for restored in serializers.deserialize(
                "python", document["objects"], using=using, handle_forward_references=True
            ):
                restored.save(using=using)
                if restored.deferred_fields:
                    deferred.append(restored)
                label = restored.object._meta.label
                report.rows[label] = report.rows.get(label, 0) + 1
                if isinstance(restored.object, Game):
                    updated_at[restored.object.pk] = restored.object.updated_at
            for restored in deferred:
                restored.save_deferred_fields(using=using)
        except serializers.base.DeserializationError as error:
            raise BackupError(f"The backup could not be read: {error}") from None
        _reset_sequences(models, using)
        games = Game.objects.using(using).select_related("player_one", "player_two").order_by("pk")
        for game in games.iterator(chunk_size=500):
            before = _figures(game)
            game_recompute(game=game)
            Game.objects.using(using).filter(pk=game.pk).update(updated_at=updated_at[game.pk])
            report.games_recomputed += 1
            if _figures(game) != before:
                report.games_changed.append(game.pk)
        transaction.on_commit(cache.clear, using=using)  # cached standings of the old install
    return report
