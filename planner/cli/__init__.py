"""The `planner` command line: the typer app (app.py) and each command's work (commands.py). Only this
package maps errors to exit codes and domain fields to flag names."""

from planner.cli.app import app, main

__all__ = ["app", "main"]
