"""What a vendor review reads off a plan: break-even prices, baselines, outages and commitments by
re-solves; risks; two plans compared with a cost bridge."""
