"""Provides the exception types the core raises for problems a user can fix."""


class QuizappError(Exception):
    """A problem with the user's input, files or environment, worded for the user; never a bug."""


class InstanceError(QuizappError):
    """A question that cannot be made concrete for some seed; `loc` names the field inside the question."""

    def __init__(self, message: str, *, loc: tuple[str | int, ...] = (), offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.offset = offset
