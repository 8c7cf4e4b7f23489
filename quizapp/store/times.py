"""Provides the store's one time encoding: UTC microseconds since the Unix epoch, as exact integers.

Integers sort and group fast in SQLite (reviews per day over a million rows) and round-trip a datetime
exactly, which ISO strings only do when every writer formats them the same way.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

US_PER_SECOND = 1_000_000
US_PER_DAY = 86_400 * US_PER_SECOND
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def require_aware(when: datetime) -> datetime:
    """Refuses naive datetimes: a time without a zone cannot be placed on the user's calendar."""
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"expected a timezone-aware datetime, got naive {when!r}")
    return when


def to_us(when: datetime) -> int:
    """An aware datetime as UTC microseconds since the epoch."""
    delta = require_aware(when) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * US_PER_SECOND + delta.microseconds


def from_us(us: int) -> datetime:
    """UTC microseconds since the epoch as an aware UTC datetime (exact inverse of to_us)."""
    return _EPOCH + timedelta(microseconds=us)


def utc(when: datetime) -> datetime:
    """The same instant with tzinfo exactly UTC, as fsrs insists on."""
    return require_aware(when).astimezone(UTC)


def day_start(when: datetime) -> datetime:
    """Midnight of `when`'s calendar day, in `when`'s own time zone (the user's day, not UTC's)."""
    return require_aware(when).replace(hour=0, minute=0, second=0, microsecond=0)


def offset_us(when: datetime) -> int:
    """The UTC offset of `when` in microseconds, used to group stored UTC times into local days."""
    offset = require_aware(when).utcoffset()
    assert offset is not None
    return (offset.days * 86_400 + offset.seconds) * US_PER_SECOND + offset.microseconds


def iso(when: datetime) -> str:
    """A fixed-format UTC ISO string (always with microseconds), so exported files compare exactly."""
    return utc(when).isoformat(timespec="microseconds")
