"""The rules engine: pure Python (no Django), turning recorded facts and a rule set into scores.

cards (card names and values), rules (presets and overrides), overrides (the one parser of
rule overrides typed by people), score (hands and sessions), partnership (four players, two
boards a deal), melds (the card solver),
card_facts (the optional ``cards`` fact checked against the others), record (the JSON game
record), ratings (Elo), charts (SVG line charts), round_robin (fixtures).
"""
