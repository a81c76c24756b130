"""The exit codes of `planner`: 0 done; 3 no feasible plan; 1 an internal error (an exception that is no
PlannerError). The errors carry their own (core.errors): 2 bad input or usage, 1 the solver, 4 a download."""

OK, INTERNAL, INFEASIBLE = 0, 1, 3
