"""Untrusted text on its way to a person: what a submission printed or named, cleaned of
what would act on a terminal (escape sequences, carriage returns, other control characters,
bidirectional overrides), and leaderboard names checked before they are stored.

JSON output keeps the exact text (machines escape it themselves); HTML escapes it and the
terminal gets `clean(text)`.
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST) and other two-character ESC sequences
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
# C0 controls but tab and newline, DEL, C1 controls, and the Unicode bidi overrides/isolates
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

USER_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
USER_RULE = ("1 to 32 characters: letters, digits, '_', '.' and '-', starting with a letter "
             "or digit")


def clean(text: str) -> str:
    """`text` without terminal escape sequences and control characters (tab and newline
    kept; each removed run becomes one '?', so that the reader sees something was there)."""
    if not text:
        return text
    text = _ESCAPES.sub("?", text)
    return _CONTROLS.sub("?", text)


def check_user(name: object) -> str:
    """A leaderboard name as given, or ValueError naming the value and the rule."""
    if not isinstance(name, str) or not USER_RE.fullmatch(name):
        raise ValueError(f"invalid leaderboard user name {name!r}: use {USER_RULE}")
    return name


__all__ = ["USER_RULE", "check_user", "clean"]
