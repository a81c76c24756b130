"""The Plan (SPEC 5): its model and JSON form, and its assembly from a solved LP."""
