"""The planner's version, in the ground floor so that any layer can name it."""

__version__ = "0.1.0"
