"""What a vendor review reads off a plan's parts: break-even prices, baselines, outages (insight) and
commitments by re-solves (contracts); risks; two plans compared with a cost bridge."""
