"""The one error type users see: a problem in an input file, with file, field path and message."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.core.fmt import visible

PATH_MAX = 100  # characters of a file name or field path shown in a message
MESSAGE_MAX = 400  # characters of a message (values in it are already cut to about 60)


@dataclass(frozen=True)
class Problem:
    """One thing wrong in one place."""

    path: str  # field path such as "workloads[2].tokens.input"; "" for the whole file
    message: str
    line: int | None = None
    column: int | None = None


@dataclass
class InputError(Exception):
    """Bad input: the CLI prints one line per problem on stderr and exits with code 2."""

    file: str
    problems: list[Problem] = field(default_factory=list)

    @classmethod
    def single(
        cls, file: str, path: str, message: str, line: int | None = None, column: int | None = None
    ) -> InputError:
        return cls(str(file), [Problem(path, message, line, column)])

    def lines(self) -> list[str]:
        """The message: one line, for the first problem (file:line:column: field path: what is wrong),
        with the number of further problems in the same file. Text from the input is shown as text:
        control characters escaped, long values cut."""
        if not self.problems:
            return [visible(self.file)]
        p = self.problems[0]
        where = visible(self.file, PATH_MAX)
        if p.line is not None:
            where += f":{p.line}"
            if p.column is not None:
                where += f":{p.column}"
        line = f"{where}: {visible(p.path, PATH_MAX)}: " if p.path else f"{where}: "
        line += visible(p.message, MESSAGE_MAX)
        if len(self.problems) > 1:
            more = len(self.problems) - 1
            line += f" (and {more} more problem{'s' if more > 1 else ''} in this file)"
        return [line]

    def __str__(self) -> str:
        return "\n".join(self.lines())


class PlannerError(Exception):
    """An internal failure (a solver that did not answer); exit code 1."""


class FetchError(Exception):
    """A download that failed after its retries (offline, an HTTP error, a body that is not the
    documented JSON): the CLI prints one line, the URL, what happened and what to do, and exits with
    code 4, so that a script can tell a network failure from bad input."""

    def __init__(self, url: str, what: str, todo: str) -> None:
        super().__init__(url, what, todo)
        self.url, self.what, self.todo = url, what, todo

    def __str__(self) -> str:
        return visible(f"{self.url}: {self.what}; {self.todo}", PATH_MAX + MESSAGE_MAX)
