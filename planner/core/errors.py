"""The planner's one family of errors. Every error raised on purpose is a PlannerError: it says what is
wrong in one line and carries the exit code the command line ends with. Its subclasses: InputError (a
file, an option or a setting is wrong: 2), SolverError (the solver did not answer: 1), NetworkError (a
download failed after its retries: 4), ExportError (a plan a gateway cannot address: 2).

A command's parameter is named by its library name (`Setting("time_limit")`); only the command line
shows it as its flag (`--time-limit`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.core.fmt import visible

PATH_MAX = 100  # characters of a file name or field path shown in a message
MESSAGE_MAX = 400  # characters of a message (values in it are already cut to about 60)


class PlannerError(Exception):
    """An error the planner raises on purpose: `lines()` for the user, `exit_code` for the shell."""

    exit_code = 1

    def lines(self, *, as_flags: bool = False) -> list[str]:
        return [visible(str(self), PATH_MAX + MESSAGE_MAX)]


class SolverError(PlannerError):
    """The solver did not give an answer the planner can trust (an internal failure, not the input's)."""

    exit_code = 1

    def lines(self, *, as_flags: bool = False) -> list[str]:
        return [visible(f"error: {self}", PATH_MAX + MESSAGE_MAX)]


class Setting(str):
    """The name of a parameter of a command (`time_limit`, `out`): the library shows it as it is, the
    command line as its flag (`--time-limit`)."""

    def shown(self, *, as_flag: bool) -> str:
        return "--" + self.replace("_", "-") if as_flag else str(self)


def _shown(text: str, *, as_flag: bool) -> str:
    return text.shown(as_flag=as_flag) if isinstance(text, Setting) else text


@dataclass(frozen=True)
class Problem:
    """One thing wrong in one place."""

    path: str  # field path such as "workloads[2].tokens.input"; "" for the whole file
    message: str
    line: int | None = None
    column: int | None = None


@dataclass
class InputError(PlannerError):
    """Bad input (a file, an option, a setting): one line on stderr, exit code 2. `file` is a path, an
    environment variable or a Setting; a problem's field path may be a Setting too."""

    file: str
    problems: list[Problem] = field(default_factory=list)
    exit_code = 2

    @classmethod
    def single(
        cls, file: str, path: str, message: str, line: int | None = None, column: int | None = None
    ) -> InputError:
        return cls(file if isinstance(file, Setting) else str(file), [Problem(path, message, line, column)])

    def lines(self, *, as_flags: bool = False) -> list[str]:
        """The message: one line, for the first problem (file:line:column: field path: what is wrong),
        with the number of further problems in the same file. Text from the input is shown as text:
        control characters escaped, long values cut. as_flags: settings shown as the CLI's flags."""
        if not self.problems:
            return [visible(_shown(self.file, as_flag=as_flags))]
        p = self.problems[0]
        where = visible(_shown(self.file, as_flag=as_flags), PATH_MAX)
        if p.line is not None:
            where += f":{p.line}"
            if p.column is not None:
                where += f":{p.column}"
        line = f"{where}: {visible(_shown(p.path, as_flag=as_flags), PATH_MAX)}: " if p.path else f"{where}: "
        line += visible(p.message, MESSAGE_MAX)
        if len(self.problems) > 1:
            more = len(self.problems) - 1
            line += f" (and {more} more problem{'s' if more > 1 else ''} in this file)"
        return [line]

    def __str__(self) -> str:
        return "\n".join(self.lines())


class NetworkError(PlannerError):
    """A download that failed after its retries (offline, an HTTP error, a body that is not the
    documented JSON): one line, the URL, what happened and what to do; exit code 4, so that a script
    can tell a network failure from bad input."""

    exit_code = 4

    def __init__(self, url: str, what: str, todo: str) -> None:
        super().__init__(url, what, todo)
        self.url, self.what, self.todo = url, what, todo

    def __str__(self) -> str:
        return visible(f"{self.url}: {self.what}; {self.todo}", PATH_MAX + MESSAGE_MAX)


class ExportError(InputError):
    """A plan with options no list of the gateway's knows (an id, a provider slug or an effort): one
    line naming every such option; exit code 2."""

    def __init__(self, file: str, to: str, unknown: dict[str, list[str]]):
        super().__init__(file)
        self.to, self.unknown = to, unknown

    def lines(self, *, as_flags: bool = False) -> list[str]:
        n = len(self.unknown)
        what = "id or effort" if self.to == "litellm" else "model id, provider or effort"
        listed = "; ".join(f"{option} ({', '.join(problems)})" for option, problems in self.unknown.items())
        return [
            visible(
                f"{self.file}: export refused: {n} option{'s' if n > 1 else ''} with no known {self.to} "
                f"{what}: {listed}; set the catalog's gateway.{self.to} ids, "
                + (
                    "point --sources at newer lists, or pass --allow-unknown to export them unchecked"
                    if as_flags
                    else "point sources at newer lists, or set allow_unknown to export them unchecked"
                )
            )
        ]
