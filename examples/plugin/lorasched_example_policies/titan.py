"""TITAN: ``las``, least attained service first, preemptive, each job on the GPUs it
requested (a queue discipline the paper did not compare)."""

from __future__ import annotations

from lorasched.jobsim import LAS, simulate
from lorasched.titan.decisions import Schedule
from lorasched.titan.policies import segments_from_log
from lorasched.titan.switch import switch_seconds


def las(arrays, rng, *, quantum_s: float = 600.0, switch: str = "naive") -> Schedule:
    """Least attained service: the job that has run least goes first, preempting.

    Parameters
    ----------
    arrays : lorasched.titan.TitanArrays
        The scenario.
    rng : numpy.random.Generator
        Unused: the policy draws no random numbers.
    quantum_s : float, optional
        How often the queue is reordered, in seconds (default 600).
    switch : str, optional
        The switch cost of each start, a table of ``lorasched.titan.switch`` (default
        ``"naive"``, as the paper's baselines pay).

    Returns
    -------
    Schedule
        The run segments of every job.
    """
    gpus = arrays.requested_gpus
    work = arrays.iterations * arrays.requested_iter_s
    overhead = switch_seconds(gpus, switch)
    res = simulate(arrays.submit, gpus, work, arrays.gpus, LAS(quantum_s=quantum_s),
                   preemptive=True, backfill=True, overhead=overhead)
    return segments_from_log(res.log_time, res.log_job, res.log_kind, gpus, work, overhead)
