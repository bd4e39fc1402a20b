"""The league wing: seasons, fixtures, confirmation, standings, wall screens and their live updates."""
