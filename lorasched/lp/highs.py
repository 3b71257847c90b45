"""Running a HiGHS model robustly: :func:`run`, shared by every MILP of every system."""

from __future__ import annotations

import highspy


def run(h: highspy.Highs, before=None) -> tuple:
    """``h.run()``, retried once if HiGHS's process-wide thread pool refuses the model's
    ``threads`` option (another solve in this process chose a different count: HiGHS then
    returns an error with model status ``kNotset``; the pool is rebuilt with ours). Unsafe
    only with a concurrent HiGHS solve in another thread of the process.

    ``before()`` (optional) runs before each attempt (e.g. to pass a start solution).
    Returns ``(status, model_status)``."""
    for attempt in range(2):
        if before is not None:
            before()
        status = h.run()
        model_status = h.getModelStatus()
        if (attempt == 0 and status == highspy.HighsStatus.kError
                and model_status == highspy.HighsModelStatus.kNotset):
            highspy.Highs.resetGlobalScheduler(True)
            continue
        break
    return status, model_status
