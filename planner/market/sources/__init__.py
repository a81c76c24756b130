"""The public data a catalog is built from, read into records: the Artificial Analysis providers table
(and its API's per-model JSON), litellm's price table and OpenRouter's listings. Each reader lists what it
cannot use, with the reason; the merge into offerings is planner.market.merge's and offerings'."""
