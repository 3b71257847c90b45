"""The paper's baselines (section 5.1), Titan per slot, EFT and NTM, and lorasched's
cost-plus rule.

Each module has ``run(arrays, rng, **options) -> Decisions``; :mod:`..policies` registers them.
"""
