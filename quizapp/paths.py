"""Provides the one place that decides where the user's files live (QUIZAPP_HOME or the platform dir)."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

import platformdirs

APP_NAME = "quizapp"
DB_FILENAME = "progress.db"
CONFIG_FILENAME = "config.toml"
CONFIG_ENV = "QUIZAPP_CONFIG"
TODAY_ENV = "QUIZAPP_TODAY"
"""YYYY-MM-DD: moves the app's clock (every command and the app) to that day, at the real time of day
(quizapp.config.system_now reads it)."""


def data_dir() -> Path:
    """The user's data folder: $QUIZAPP_HOME if set, else the platform's user data dir."""
    home = os.environ.get("QUIZAPP_HOME")
    if home:
        return Path(home).expanduser()

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def db_path(override: str | os.PathLike[str] | None = None) -> Path:
    """The progress database: `--db PATH` if given, else progress.db in the data folder."""
    return Path(override).expanduser() if override else data_dir() / DB_FILENAME


def config_path() -> Path:
    """The config file: $QUIZAPP_CONFIG if set, else config.toml in $QUIZAPP_HOME (so a throwaway home
    brings its own) or in the platform's user config dir."""
    chosen = os.environ.get(CONFIG_ENV)
    if chosen:
        return Path(chosen).expanduser()
    home = os.environ.get("QUIZAPP_HOME")
    if home:
        return Path(home).expanduser() / CONFIG_FILENAME

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / CONFIG_FILENAME


def backups_dir() -> Path:
    """Where the rolling daily copies of the default progress database go."""
    return data_dir() / "backups"


def user_decks_dir() -> Path:
    """Where users drop their own YAML decks."""
    return data_dir() / "decks"


def cache_dir() -> Path:
    """Where the validated catalog cache lives (safe to delete): `cache/` in $QUIZAPP_HOME if set (a
    throwaway home keeps everything together), else the platform's user cache dir, which honours
    $XDG_CACHE_HOME on Linux and the BSDs."""
    home = os.environ.get("QUIZAPP_HOME")
    if home:
        return Path(home).expanduser() / "cache"

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def bundled_content_dir() -> Path:
    """The bundled decks: inside the wheel as quizapp/_content, or the repo's content/ in a checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "_content"
    if packaged.is_dir():
        return packaged
    return here.parent / "content"


class NotARegularFile(OSError):
    """A file is to be written where a FIFO, a device or a socket stands."""


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_target(target: Path) -> None:
    """Raises NotARegularFile (an OSError whose strerror says what stands there) when `target` exists
    and is a FIFO, a device or a socket: writing there, or opening it to look inside, could wait for ever
    (a FIFO) or replace a device node (as root). Found by os.stat, which never opens it, so never blocks."""
    try:
        mode = os.stat(target).st_mode
    except OSError:  # nothing there (or nothing this user may see): the write itself says what is wrong
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    raise NotARegularFile(errno.EINVAL, f"it is {kind}, and quizapp writes only regular files")


def temp_beside(target: Path) -> tuple[int, Path]:
    """A new, empty file in `target`'s folder for writing `target` atomically (write it, then
    os.replace it over `target`): made by tempfile.mkstemp, so its name is not predictable and it is
    created exclusively (a planted file or symlink of any name is never followed), private to the user.
    Returns its open descriptor and its path. A `target` that is a FIFO, a device or a socket raises
    NotARegularFile first (check_target)."""
    check_target(target)

    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    return fd, Path(name)
