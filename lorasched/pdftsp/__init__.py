"""pdFTSP (Zheng et al., ICPP'24): online scheduling and pricing of multi-LoRA fine-tuning tasks.

:mod:`.scenario`, :mod:`.workload`, :mod:`.kernels`, :mod:`.cg_kernels`,
:mod:`.candidate_index`, :mod:`.schedule`, :mod:`.auction`, :mod:`.mechanism`,
:mod:`.diagnostics`, :mod:`.baselines`, :mod:`.pricing`, :mod:`.policies`, :mod:`.offline`,
:mod:`.bound`, :mod:`.decisions`, :mod:`.result`, :mod:`.simulation`, :mod:`.system`,
:mod:`.env` (the admission as a decision problem), :mod:`.flags` (its ``lorasched
simulate`` flags).
See :doc:`/model`, :doc:`/algorithm`.
"""
