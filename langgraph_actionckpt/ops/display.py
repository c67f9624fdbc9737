"""Text from rows, shown as data: what the CLI and the timeline print of a thread.

Anything a row holds (thread ids, names, errors, meta) was written by whoever
could write to the database or call the service, so it is never trusted as
presentation: terminal control characters (ESC, CR, BEL, ...), Unicode line
and bidirectional-override characters and lone surrogates are shown as
escapes (``\\x1b``, ``\\u202e``, ``\\udcff``), and rich markup in it is never
interpreted. Every command of :mod:`langgraph_actionckpt.ops` prints rows
through :func:`cell` (a table cell or a line of its own) or :func:`safe`
(inside a line of our own markup), and JSON through :func:`json_text`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.markup import escape
from rich.text import Text

__all__ = ["cell", "clean", "json_text", "safe"]

# C0 and C1 controls and DEL, line/paragraph separators, bidi embeddings,
# overrides and isolates (they reorder what follows them on screen), surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean(value: Any) -> str:
    """``value`` as one line of printable text: control characters as escapes.

    Args:
        value: Anything; ``None`` becomes ``""``, other non-strings ``str(value)``.

    Returns:
        The text with every terminal control character, Unicode separator,
        bidi control and lone surrogate replaced by its ``\\xNN`` / ``\\uNNNN``
        escape. The result always encodes to UTF-8.
    """
    if value is None:
        return ""
    return _UNSAFE.sub(_escaped, value if isinstance(value, str) else str(value))


def cell(value: Any, style: str | None = None) -> Text:
    """``value`` as a rich :class:`~rich.text.Text`: cleaned, never parsed as markup.

    Args:
        value: The row's value (see :func:`clean`).
        style: A rich style for the whole text (ours, never the row's).
    """
    return Text(clean(value), style=style or "", no_wrap=False)


def safe(value: Any) -> str:
    """``value`` cleaned and markup-escaped, to embed in a line of our own markup."""
    return escape(clean(value))


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(obj: Any, **options: Any) -> str:
    """``obj`` as JSON that always encodes to UTF-8.

    Non-ASCII text stays readable (``ensure_ascii=False``), but what
    :func:`clean` escapes is written as a JSON escape (``"\\u202e"``): a lone
    surrogate, which UTF-8 cannot hold, and the C1 and bidi controls a terminal
    would act on. It reads back as the same string.

    Args:
        obj: What to dump (``default=str`` for anything JSON has no type for).
        **options: More :func:`json.dumps` options (``indent``...).
    """
    text = json.dumps(obj, ensure_ascii=False, default=str, **options)
    return _UNSAFE.sub(_json_escape, text)
