"""What an Allpass-system policy returns: each job's finish and tiers, the leases, the run
segments and the ticks of one run, in plain arrays (:class:`Run`); see
:doc:`/reference/allpass_cluster`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: segment kinds: work, a checkpoint, a restore
RUN, CHECKPOINT, RESTORE = 0, 1, 2
SEGMENT_KINDS = ("run", "checkpoint", "restore")


class Run(NamedTuple):
    """What one run decided, in plain arrays: what an Allpass policy returns.

    ``lorasched.allpass.result.assemble`` turns it into a result. J jobs, L leases, S
    segments, K ticks.

    Parameters
    ----------
    finish, serverless_s, demotions, preemptions, overhead_s, queue_s : numpy.ndarray
        Per job (J,): finish time (s), seconds of work done on the serverless tier,
        demotions, preemptions, seconds spent in checkpoints and restores, seconds in the
        serverful queue.
    lease_provider, lease_offer, lease_start, lease_ready, lease_end, lease_price : numpy.ndarray
        Per lease (L,): the provider, the offer slot (-1: not the marketplace), start,
        ready and end times (s), and the price ($/GPU-h).
    seg_job, seg_lease, seg_kind, seg_start, seg_end : numpy.ndarray
        Per segment (S,): the job, the lease, the kind (run, checkpoint or restore), start
        and end (s).
    tick_t, tick_p, tick_demand, tick_window, tick_F : numpy.ndarray
        Per tick (K,): its time (s), the pressure of eq. (2) (inf allowed), D(t, T) of the
        binding window (work-s; x 60 under ``units="slip"``), the binding window T (s),
        and the threshold in force after the tick (s; NaN: none).
    tick_queue, tick_workers, tick_ready, tick_busy, tick_serverless : numpy.ndarray
        Per tick (K,): jobs queued (serverful) after the tick's decisions, open serverful
        leases, ready serverful workers, serverful workers holding a job, jobs on the
        serverless tier.
    events : int
        Instants of the event loop the run stepped through.
    """

    finish: np.ndarray            # (J,) s
    serverless_s: np.ndarray      # (J,) s of work done on the serverless tier
    demotions: np.ndarray         # (J,) int
    preemptions: np.ndarray       # (J,) int
    overhead_s: np.ndarray        # (J,) s spent in checkpoints and restores
    queue_s: np.ndarray           # (J,) s in the serverful queue
    lease_provider: np.ndarray    # (L,) str
    lease_offer: np.ndarray       # (L,) int, the offer slot (-1: not the marketplace)
    lease_start: np.ndarray       # (L,) s
    lease_ready: np.ndarray       # (L,) s
    lease_end: np.ndarray         # (L,) s
    lease_price: np.ndarray       # (L,) $/GPU-h
    seg_job: np.ndarray           # (S,) int
    seg_lease: np.ndarray         # (S,) int
    seg_kind: np.ndarray          # (S,) int, RUN/CHECKPOINT/RESTORE
    seg_start: np.ndarray         # (S,) s
    seg_end: np.ndarray           # (S,) s
    tick_t: np.ndarray            # (K,) s
    tick_p: np.ndarray            # (K,) eq. (2), inf allowed
    tick_demand: np.ndarray       # (K,) D(t, T) of the binding window, work-s (x 60: slip)
    tick_window: np.ndarray       # (K,) the binding window T, s
    tick_F: np.ndarray            # (K,) threshold in force after the tick, s (nan: none)
    tick_queue: np.ndarray        # (K,) jobs queued (serverful), after the tick's decisions
    tick_workers: np.ndarray      # (K,) open serverful leases
    tick_ready: np.ndarray        # (K,) ready serverful workers
    tick_busy: np.ndarray         # (K,) serverful workers holding a job
    tick_serverless: np.ndarray   # (K,) jobs on the serverless tier
    events: int
