"""Compile lorasched's numba kernels into their on-disk cache once, before the test
workers or the book's cell processes start: each of those processes would otherwise
compile the kernels it meets itself while the cache is still empty (about half a minute
of one core each). Runs every pdFTSP policy, both payment rules and the auction service
on a small day."""

import lorasched
from lorasched.bench.service import measure

day = lorasched.synthetic_scenario(nodes=6, slots=24, load=4.0, seed=1)
for policy in ("pdftsp", "eft", "ntm", "cost_plus"):
    lorasched.simulate(day, policy, seed=1)
lorasched.simulate(day, "pdftsp", seed=1, payment="paper")
measure(lorasched.synthetic_scenario(nodes=2, slots=6, load=2.0, seed=1), concurrency=(1,))
