"""`python -m planner`: the same command line as `planner`."""

from planner.cli.app import main

main()
