"""The live review (`planner serve`): the plan as a local web page whose controls (prices, budgets,
traffic, caps, outages) re-solve it warm from the base and save the changes as a what-if scenario."""
