"""The input files as typed objects: pydantic schemas (SPEC 1, 2, 6), the YAML loader with file and
field path in every error, scenario and overlay edits, traffic distributions, metric rescales, and the
JSON Schemas generated from the models."""
