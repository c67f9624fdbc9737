"""The contrast check's English word tables: times of day and week, and opposite words.

:mod:`.contrast` reads them; the closed grammatical classes of every read language live
in :mod:`.structure`. These tables are not grown from evaluation sets any more (issue #34):
a new shape of difference gets a structural rule instead.
"""

from __future__ import annotations

__all__ = ["EVERY", "OPPOSITES", "PLURAL_TIMES", "SAME_TIME", "TIME_WORDS"]

TIME_WORDS = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "today", "tomorrow", "yesterday", "tonight",
    "morning", "afternoon", "evening", "night", "noon", "midnight", "weekend", "weekday",
    "am", "pm", "last", "next", "previous", "week", "month", "year", "hour", "minute",
    "daily", "weekly", "monthly", "yearly", "annual", "quarter", "q1", "q2", "q3", "q4",
    "winter", "spring", "summer", "autumn", "fall", "day",
}  # fmt: skip
# the time words a plural names the same time of ("on Saturdays", "for six months")
PLURAL_TIMES = frozenset({
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "day", "week",
    "weekend", "month", "year", "morning", "afternoon", "evening", "night",
})  # fmt: skip
# one time written two ways: "annual" / "per year", "9 am" / "9 in the morning"
SAME_TIME = {
    "annual": "year", "yearly": "year", "monthly": "month", "weekly": "week", "daily": "day",
    "am": "morning", "tonight": "evening",
}  # fmt: skip
EVERY = frozenset({"annual", "yearly", "monthly", "weekly", "daily"})

# Groups of (one side, the other side): a request using words of only one side
# against one using words of only the other is refused.
OPPOSITES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        (
            "on enable enabled activate open opened up show connect allow allowed",
            "off disable disabled deactivate close closed down hide disconnect block blocked",
        ),
        ("start resume continue", "stop pause end halt"),
        ("add put insert include append attach", "remove delete drop exclude detach"),
        (
            "increase raise higher highest more maximum max most largest biggest bigger larger",
            "decrease lower lowest less fewer minimum min least smallest smaller tiniest",
        ),
        ("buy purchase long", "sell short"),
        ("before earlier prior", "after later"),
        ("accept approve yes confirm", "decline reject deny no"),
        ("lock locked", "unlock unlocked"),
        ("follow subscribe mute archive read", "unfollow unsubscribe unmute unarchive unread"),
        ("ascending asc", "descending desc"),
        ("upgrade", "downgrade"),
        (
            "pros advantages benefits good positive best",
            "cons disadvantages risks drawbacks bad negative worst",
        ),
        ("safe", "unsafe dangerous"),
        ("warm hot", "cold cool"),
        ("cheap cheapest inexpensive", "expensive priciest"),
        ("in into zoom-in", "out zoom-out"),
        ("always", "never sometimes"),
        ("true", "false"),
        ("north", "south"),
        ("east", "west"),
        ("import", "export"),
        ("encrypt", "decrypt"),
        ("win", "lose"),
        ("plus sum add", "minus subtract difference"),
        ("multiply times product", "divide quotient"),
        ("first", "last"),
        ("left", "right"),
        ("input", "output"),
        ("send", "receive"),
        ("push", "pull"),
        ("formal", "informal casual"),
        ("long longer", "short shorter brief"),
        ("happy", "sad"),
        ("heavy", "light"),
        ("fast faster", "slow slower"),
        ("early", "late"),
        ("high", "low"),
    )
)  # fmt: skip
