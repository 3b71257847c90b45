"""pdFTSP (Zheng et al., ICPP'24): online scheduling and pricing of multi-LoRA fine-tuning
tasks with deadlines, labelling vendors and operating cost.

* :mod:`.scenario` — the model's inputs as an ``xarray.Dataset`` (section 2.1), validation
  with named errors, and :class:`~.scenario.ScenarioArrays`, the plain arrays every policy
  gets; :mod:`.workload` — the seeded synthetic generator (section 5.1) and trace days;
* :mod:`.kernels` — the numba kernels; :mod:`.schedule` — Algorithm 2 (the per-task
  schedule search, problem (12)); :mod:`.auction` — Algorithm 1 (the online primal-dual
  auction, dual updates (8)-(11), payments); :mod:`.mechanism` — replay and what-if
  (truthfulness, Fig. 10);
* :mod:`.baselines` — Titan per slot, EFT, NTM; :mod:`.pricing` — their posted price;
  :mod:`.policies` — the registry of policies;
* :mod:`.offline` — problem (4) exactly (MILP); :mod:`.bound` — its column-generation LP
  bound;
* :mod:`.decisions`, :mod:`.result` — what a policy returns, the accounting of eqs.
  (1)-(3) and the checker; :mod:`.simulation` — one policy on one scenario;
  :mod:`.system` — pdFTSP as a :class:`~lorasched.model.system.System`; :mod:`.flags` —
  its flags of ``lorasched simulate``.
"""
