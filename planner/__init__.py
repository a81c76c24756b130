"""planner: per-workload model selection as a linear program."""

__version__ = "0.1.0"
