"""Package data: the gateway lists (gateway_lists.json), rebuilt by `make gateway-lists`."""
