"""The terminal's building blocks, shared by everything a command prints: the console (100 columns or
wider, no markup read, no trailing padding), tables, rows and sentences of text from the inputs,
labels wrapped only at their separators, column widths fitted to the room, and progress bars."""

from __future__ import annotations

import itertools
import re
import shutil

from rich.cells import cell_len

from planner.core.fmt import visible

TABLE_ROWS = 25  # terminal tables show at most this many rows; files carry everything


def console():
    """A console that reads no markup (names and reasons from input files are printed as they are)
    and ends no line with padding (rich pads a table's title and caption to the table's width)."""
    from rich.console import Console

    class Trimmed(Console):
        def _render_buffer(self, buffer) -> str:
            text = super()._render_buffer(buffer)
            return _TRAILING.sub("", text)

    width = max(100, shutil.get_terminal_size((120, 24)).columns)
    return Trimmed(highlight=False, soft_wrap=False, markup=False, width=width)


_TRAILING = re.compile(r"[ \t]+(?=(?:\x1b\[[0-9;]*m)*\n)")  # spaces before a line's end (and its style resets)


def titled_table(title: str):
    """A table with its title on the left, the title's text from the inputs shown as text."""
    from rich.table import Table

    return Table(title=visible(title), title_justify="left")


def input_row(table, *cells) -> None:
    """A table row of text from the inputs: control characters shown as escapes, never as markup."""
    table.add_row(*(c if not isinstance(c, str) else visible(c) for c in cells))


def styled(text: str, style: str):
    """Text from the inputs in a style (never read as markup)."""
    from rich.text import Text

    return Text(visible(text), style=style)


def say(out, text: str, indent: str = "", style: str | None = None) -> None:
    """A sentence wrapped to the console's width, its continuation lines indented under its start."""
    import textwrap

    lines = textwrap.wrap(
        visible(text), width=out.width, subsequent_indent=indent + "   ", break_on_hyphens=False, break_long_words=False
    )
    for line in lines:
        out.print(styled(line, style) if style else line)


_PIECE = re.compile(r"@?[^@\-/ ]*[\-/ ]*")


def _pieces(text: str) -> list[str]:
    """text cut where a line may break: after - / and spaces, before @."""
    return [p for p in _PIECE.findall(text) if p]


def _hosts_whole(pieces: list[str], width: int) -> list[str]:
    """The pieces with a host (from its `@` to the next space) made one piece when it fits a line, so a
    line breaks before the host rather than inside it."""
    out: list[str] = []
    host: list[str] = []
    for p in pieces:
        if p.startswith("@"):
            host = [p]
        elif host and not host[-1].endswith(" "):
            host.append(p)
        else:
            out.append(p)
            continue
        if host[-1].endswith(" ") or p is pieces[-1]:
            joined = "".join(host)
            out.extend([joined] if cell_len(joined.rstrip()) <= width else host)
            host = []
    if host:
        joined = "".join(host)
        out.extend([joined] if cell_len(joined.rstrip()) <= width else host)
    return out


def wrap_at_separators(text: str, width: int) -> str:
    """text in lines of at most width cells, broken only where _pieces allows (a piece longer than a
    line stays whole here; the table folds it)."""
    lines, line = [], ""
    for piece in _hosts_whole(_pieces(text), width):
        if line and cell_len((line + piece).rstrip()) > width:
            lines.append(line.rstrip())
            line = piece
        else:
            line += piece
    lines.append(line.rstrip())
    return "\n".join(lines)


def fit_widths(columns: list[list[str]], heads: list[str], room: int) -> list[int]:
    """Widths for columns whose text wraps, within room cells: each column's widest cell when they all
    fit; else the first column takes what the others leave, their widths chosen for the fewest rows
    folded mid-word, then the fewest rows on more than one line, then the widest first column."""
    import numpy as np

    full = [np.array([cell_len(c) for c in cells] or [0]) for cells in columns]
    piece = [
        np.array([max((cell_len(p.rstrip()) for p in _pieces(c)), default=0) for c in cells] or [0])
        for cells in columns
    ]
    least = [cell_len(h) for h in heads]
    natural = [max(h, int(f.max())) for h, f in zip(least, full, strict=True)]
    if sum(natural) <= room:
        return natural
    choices = [
        sorted({int(x) for x in (*np.unique(full[k]), *np.unique(piece[k])) if least[k] <= x <= room // 2} | {least[k]})
        for k in range(1, len(columns))
    ]
    best, chosen = None, least
    for rest in itertools.product(*choices):
        widths = [min(room - sum(rest), natural[0]), *rest]
        if widths[0] < least[0]:
            continue
        folded = np.zeros(len(full[0]), bool)
        wrapped = np.zeros(len(full[0]), bool)
        for k, w in enumerate(widths):
            folded |= piece[k] > w
            wrapped |= full[k] > w
        key = (int(folded.sum()), int(wrapped.sum()), -widths[0])
        if best is None or key < best:
            best, chosen = key, widths
    return chosen


def _bar(label: str):
    """A transient progress bar on stderr (silent when not a terminal)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    return Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def progress(total: int, label: str):
    """A progress bar for runs longer than a moment: the bar and `step()` for one step done."""
    bar = _bar(label)
    task = bar.add_task(label, total=total)
    return bar, lambda: bar.advance(task)


def counter(label: str):
    """A progress bar whose total grows as the work is found: the bar, `grow(n)` for n more steps
    and `step()` for one done."""
    bar = _bar(label)
    task = bar.add_task(label, total=0)
    totals = [0]

    def grow(n: int) -> None:
        totals[0] += n
        bar.update(task, total=totals[0])

    return bar, grow, lambda: bar.advance(task)
