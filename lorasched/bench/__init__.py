"""Every benchmark ``lorasched bench ...`` prints; figures, never assertions.

* :mod:`.pdftsp` — pdFTSP's time per decision, numba speed-up, DP optimality, runtime;
* :mod:`.scale` — time and memory at every scale (the speed page's table and goals);
* :mod:`.titan_per_slot` — Titan-per-slot's day under each per-slot MILP setting;
* :mod:`.service` — ``lorasched serve``: decisions per second and latency;
* :mod:`.faults` — ``lorasched serve`` under injected faults (the fault drill).
"""
