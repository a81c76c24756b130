"""Request logs read in DuckDB (LiteLLM spend logs, OpenTelemetry spans, plain CSV) and aggregated by
the portable SQL in sql/ into workloads files and their distributions."""
