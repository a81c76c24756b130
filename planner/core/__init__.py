"""The ground floor: errors, number and text formatting, files read and written safely, stage timings
and the command's deadline, small array helpers, typed records built without validating them again.
Imports nothing else of planner."""
