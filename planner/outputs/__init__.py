"""What people read: terminal tables at 100 columns, the self-contained HTML reports, CSV/JSON rows,
and exports into LiteLLM and OpenRouter."""
