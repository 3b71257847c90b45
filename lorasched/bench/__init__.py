"""Every benchmark ``lorasched bench ...`` prints; figures, never assertions.

* :mod:`.pdftsp` — pdFTSP's time per decision, numba speed-up, DP optimality, runtime;
* :mod:`.scale` — time and memory at every scale, against the speed goals;
* :mod:`.scale_page` — the speed page: ``bench scale``'s JSON read back as its table,
  plots and findings;
* :mod:`.titan_per_slot` — Titan-per-slot's day under each per-slot MILP setting;
* :mod:`.service` — ``lorasched serve``: decisions per second and latency;
* :mod:`.faults` — ``lorasched serve`` under injected faults (the fault drill).
"""
