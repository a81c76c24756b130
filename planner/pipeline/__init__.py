"""Files to plans: one solve, what-if batches started warm, frontiers, and a plan replayed on logs."""
