"""The one rule-override parser: the new-game form, the season form, the API and import all read overrides here.

A value may come typed (JSON) or as text a person wrote; either way the same
words mean the same thing: ``off`` turns a bonus off (``line_bonus = off``),
``yes``/``no`` answer a yes-or-no rule, a whole number is a number. What is
allowed (ranges, choices) is then checked once, by ``rules.resolve_rules``.
"""

from __future__ import annotations

from typing import Any

from scoring.engine.rules import RULE_FIELDS, RULE_KINDS, RuleError, RuleSet, resolve_rules
from scoring.engine.text import _

YES_WORDS = ("yes", "true", "on", "y")
NO_WORDS = ("no", "false", "off", "n")
OFF_WORDS = ("off", "no", "none", "null", "false", "-")


def parse_value(name: str, value: Any) -> Any:
    """One override's value, typed for rule ``name``; RuleError (naming the rule) if it cannot be read."""
    if name not in RULE_KINDS:
        raise RuleError(
            name, _("%(name)s is not a rule (known rules: %(known)s)") % {"name": name, "known": ", ".join(RULE_FIELDS)}
        )
    kind = RULE_KINDS[name]
    text = value.strip().lower() if isinstance(value, str) else None
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if text in YES_WORDS:
            return True
        if text in NO_WORDS:
            return False
        raise RuleError(name, _("%(name)s must be yes or no, not %(value)s") % {"name": name, "value": _shown(value)})
    if kind == "choice":
        return text if text is not None else value  # resolve_rules names the allowed choices
    if kind == "int_or_null" and (value is None or value is False or text in OFF_WORDS):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if text is not None and text.lstrip("-").isdigit():
        return int(text)
    if kind == "int_or_null":
        message = _("%(name)s must be a whole number, or off, not %(value)s")
    else:
        message = _("%(name)s must be a whole number, not %(value)s")
    raise RuleError(name, message % {"name": name, "value": _shown(value)})


def _shown(value: Any) -> str:
    return f"“{value.strip()}”" if isinstance(value, str) else repr(value)


def read_rules(spec: Any) -> RuleSet:
    """``{"preset": ..., <overrides>}`` with values typed or as text -> a full, validated RuleSet."""
    if spec is None or isinstance(spec, RuleSet) or not isinstance(spec, dict):
        return resolve_rules(spec)
    typed = {name: value if name == "preset" else parse_value(name, value) for name, value in spec.items()}
    return resolve_rules(typed)  # which reads the preset's name (rules.preset_named)


def parse_override_lines(text: str) -> dict[str, Any]:
    """``target = 150`` lines (``#`` starts a comment) -> {"target": 150}; RuleError names the rule or the line."""
    overrides: dict[str, Any] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise RuleError(
                "overrides", _("Line %(number)s: write a rule as name = value, e.g. target = 150.") % {"number": number}
            )
        name, value = (part.strip() for part in line.split("=", 1))
        if name not in RULE_KINDS:
            raise RuleError(
                "overrides",
                _("Line %(number)s: %(name)s is not a rule. Known rules: %(known)s.")
                % {"number": number, "name": repr(name), "known": ", ".join(RULE_FIELDS)},
            )
        overrides[name] = parse_value(name, value)
    return overrides
