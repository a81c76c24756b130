"""`python -m planner`: the same command line as `planner`."""

from .cli import main

main()
