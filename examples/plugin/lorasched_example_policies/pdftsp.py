"""pdFTSP: ``cost_plus_example``, first come first served, each task priced at a markup over
what serving it costs (its cheapest vendor and earliest-finish schedule). lorasched ships
the same rule as its built-in baseline ``cost_plus``
(:mod:`lorasched.pdftsp.baselines.cost_plus`); this copy stays as the example of a policy
written outside lorasched and declared as an entry point (a plug-in may not replace a
built-in policy, hence its own name)."""

from __future__ import annotations

from lorasched.pdftsp.decisions import CellCollector, Decisions
from lorasched.pdftsp.kernels import earliest_finish


def cost_plus(arrays, rng, *, markup: float = 2.0) -> Decisions:
    """Cost-plus pricing: admit a task iff its bid covers ``markup`` x its cheapest cost.

    Tasks are taken in arrival order. For every vendor the task could use (or none, if its
    data need no pre-processing) the earliest-finish schedule in the capacity left after the
    vendor's delay is found; the cheapest (vendor price + operating cost) is kept. The task
    is admitted iff its bid is at least ``markup`` times that cost, and pays exactly that.

    Parameters
    ----------
    arrays : lorasched.pdftsp.ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Unused: the policy draws no random numbers.
    markup : float, optional
        The price over cost (default 2).

    Returns
    -------
    Decisions
        Admission, vendor, schedule and payment of every task.
    """
    if not markup > 0:
        raise ValueError(f"markup must be > 0, got {markup!r}")
    a = arrays
    out = Decisions.empty(a.n_tasks, a.n_nodes, a.n_slots)
    compute_left, memory_left = a.residual()
    cells = CellCollector()
    for i in range(a.n_tasks):
        if a.needs_preprocessing[i]:
            offers = zip(range(a.n_vendors), a.vendor_price[i], a.vendor_delay[i],
                         strict=True)
        else:
            offers = [(-1, 0.0, 0)]
        best = None
        for v, price, delay in offers:
            finish, nodes, slots = earliest_finish(
                a.arrival[i] + delay, a.deadline[i], a.work[i], a.speed[i], a.memory[i],
                compute_left, memory_left, a.compute_capacity, False)
            if finish < 0:
                continue
            cost = price + a.op_cost(i, nodes, slots).sum()
            if best is None or cost < best[0]:
                best = (cost, v, nodes, slots)
        if best is None:
            continue
        cost, v, nodes, slots = best
        if a.bid[i] < markup * cost:
            out.reason[i] = "price_above_bid"
            continue
        compute_left[nodes, slots] -= a.speed[i, nodes]
        memory_left[nodes, slots] -= a.memory[i]
        out.admitted[i], out.chosen_vendor[i], out.reason[i] = True, v, "admitted"
        out.payment[i] = markup * cost
        cells.add(i, nodes, slots)
    cells.store(out)
    return out
