"""Allpass: ``edf_serverful``, every job on the serverful tier in earliest-deadline-first
order, a worker leased for each queued job (no serverless tier, no pressure scaler)."""

from __future__ import annotations

from lorasched.allpass.cluster import AllpassCluster
from lorasched.allpass.decisions import Run


def edf_serverful(arrays, rng) -> Run:
    """Earliest deadline first on serverful workers leased on demand.

    Parameters
    ----------
    arrays : lorasched.allpass.scenario.AllpassArrays
        The scenario.
    rng : numpy.random.Generator
        Draws the providers' start-up delays.

    Returns
    -------
    Run
        What the run decided.
    """
    cluster = AllpassCluster(arrays.submit, arrays.work, arrays.deadline, arrays.offers,
                             arrays.capacity, rng, serverless="none", discipline="edf",
                             provision="on-demand")
    cluster.run()
    return cluster.result()
