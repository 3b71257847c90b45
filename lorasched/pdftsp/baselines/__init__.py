"""The paper's baselines (section 5.1): Titan per slot, EFT and NTM.

Each module has ``run(arrays, rng, **options) -> Decisions``; :mod:`..policies` registers them.
"""
