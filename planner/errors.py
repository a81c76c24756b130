"""The one error type users see: a problem in an input file, with file, field path and message."""

from __future__ import annotations

from dataclasses import dataclass, field


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
        out = []
        for p in self.problems:
            where = self.file
            if p.line is not None:
                where += f":{p.line}"
                if p.column is not None:
                    where += f":{p.column}"
            out.append(f"{where}: {p.path}: {p.message}" if p.path else f"{where}: {p.message}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


class PlannerError(Exception):
    """An internal failure (a solver that did not answer); exit code 1."""
