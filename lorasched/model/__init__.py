"""What every system shares.

* :mod:`.traces` — real GPU-cluster job tables (MLaaS, Philly, Helios, Acme, or a user's
  CSV): reading with named errors, the representative day, slot binning and scaling;
* :mod:`.jobs` — job windows and samples of a trace, for the job-level systems;
* :mod:`.profiles` — published GPU and model numbers (throughput, memory, prices), each
  with its source;
* :mod:`.system` — the :class:`~.system.System` plug-in contract between a system and the
  experiment engine;
* :mod:`.flags` — the form of the flags a system adds to ``lorasched simulate``, and the
  argument types they share.
"""
