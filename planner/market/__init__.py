"""The market as published: catalogs imported from Artificial Analysis, litellm and OpenRouter, the
downloads they come from, catalog diffs, speeds calibrated from logs, and the gateways' own ids."""
