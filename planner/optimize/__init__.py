"""The optimisation: the workload x option table (SPEC 3), pruning, the linear program as arrays
(SPEC 4), the HiGHS and CBC backends behind one interface, the passes over them, and warm re-solves."""
