"""The job engine and queue disciplines (lorasched.jobsim).

The reference is :func:`oracle`, a time-stepped simulator (dt = 1 s on integer inputs)
written from the engine's documented rules and sharing no code with it; hand-worked
examples (textbook SRPT, TITAN Table 2) pin the numbers; hypothesis checks the invariants
on the event log (work conservation, no service before arrival, at most G busy GPUs, no
fitting job left waiting under backfill).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lorasched.jobsim import (
    DISCIPLINES,
    EDF,
    FIFO,
    FINISH,
    LAS,
    PREEMPT,
    RUN,
    SJF,
    SRTF,
    JobEngine,
    Tiresias,
    busy_gpus,
    discipline,
    mean_jct,
    simulate,
)
from lorasched.jobsim.engine import fewest_nodes
from lorasched.model.errors import InputError
from lorasched.model.jobs import filter_jobs, job_window

# ----------------------------------------------------------------------------------------
# the brute-force oracle
# ----------------------------------------------------------------------------------------


def oracle(arrival, gpus, work, G, rule, *, preemptive, backfill, deadline=None):
    """Step time by 1 s; decide at arrivals, completions and the reviews of ``rule``.

    ``rule``: dict with ``name`` (fifo, sjf, srtf, las, tiresias, edf), ``service``
    ("time"/"gpu_time"), ``quantum`` and ``threshold`` (or None). Returns start, finish
    and preemptions per job as lists.
    """
    n = len(arrival)
    left, got = list(work), [0] * n  # seconds of work left / attained
    start, finish, preempted = [None] * n, [None] * n, [0] * n
    running: set[int] = set()
    scale = (lambda j: gpus[j]) if rule["service"] == "gpu_time" else (lambda j: 1)

    def key(j):
        name = rule["name"]
        if name == "fifo":
            return arrival[j]
        if name == "sjf":
            return work[j] * scale(j)
        if name == "srtf":
            return left[j] * scale(j)
        if name == "las":
            return got[j] * scale(j)
        if name == "tiresias":
            return 0 if got[j] * scale(j) < rule["threshold"] else 1
        return deadline[j]

    t, last, waited, completed, crossed = min(arrival), None, False, False, False
    while None in finish:
        here = [j for j in range(n) if arrival[j] <= t and finish[j] is None]
        review = preemptive and waited and (
            (rule["quantum"] is not None and t == last + rule["quantum"]) or crossed)
        if completed or t in arrival or review:
            pool = here if preemptive else [j for j in here if j not in running]
            free = G if preemptive else G - sum(gpus[j] for j in running)
            chosen = set()
            for j in sorted(pool, key=lambda j: (key(j), arrival[j], j)):
                if gpus[j] <= free:
                    chosen.add(j)
                    free -= gpus[j]
                elif not backfill:
                    break
            if preemptive:
                for j in running - chosen:
                    preempted[j] += 1
                new = chosen
            else:
                new = running | chosen
            for j in new - running:
                start[j] = t if start[j] is None else start[j]
            running = new
            last, waited = t, any(j not in running for j in here)
        completed = crossed = False
        for j in running:
            before = got[j] * scale(j)
            left[j] -= 1
            got[j] += 1
            if rule["threshold"] is not None and before < rule["threshold"] <= got[j] * scale(j):
                crossed = True
            if left[j] == 0:
                finish[j], completed = t + 1, True
        running = {j for j in running if finish[j] is None}
        t += 1
    return start, finish, preempted


# (engine discipline, oracle rule); Tiresias' GPU-s threshold is a multiple of 1..4 GPUs
RULES = {
    "fifo": (FIFO(), {"name": "fifo"}),
    "sjf": (SJF(), {"name": "sjf"}),
    "sjf-gpu": (SJF("gpu_time"), {"name": "sjf", "service": "gpu_time"}),
    "srtf": (SRTF(), {"name": "srtf"}),
    "srtf-gpu": (SRTF("gpu_time"), {"name": "srtf", "service": "gpu_time"}),
    "las": (LAS(), {"name": "las"}),
    "las-q2": (LAS(quantum_s=2), {"name": "las", "quantum": 2}),
    "las-gpu-q1": (LAS("gpu_time", 1), {"name": "las", "service": "gpu_time", "quantum": 1}),
    "tiresias-3s": (Tiresias(3, "time"), {"name": "tiresias", "threshold": 3}),
    "tiresias-12gs": (Tiresias(12), {"name": "tiresias", "service": "gpu_time",
                                     "threshold": 12}),
    "edf": (EDF(), {"name": "edf"}),
}
for _, _rule in RULES.values():
    _rule.setdefault("service", "time")
    _rule.setdefault("quantum", None)
    _rule.setdefault("threshold", None)


@st.composite
def instances(draw, max_jobs=6, max_gpus=4):
    G = draw(st.integers(1, max_gpus))
    n = draw(st.integers(1, max_jobs))
    ints = lambda lo, hi: st.lists(st.integers(lo, hi), min_size=n, max_size=n)  # noqa: E731
    return (draw(ints(0, 10)), draw(ints(1, G)), draw(ints(1, 6)), G, draw(ints(0, 30)))


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("preemptive", [True, False])
@pytest.mark.parametrize("backfill", [True, False])
@settings(max_examples=40, deadline=None)
@given(case=instances())
def test_engine_agrees_with_the_time_stepped_oracle(rule, preemptive, backfill, case):
    arrival, gpus, work, G, deadline = case
    disc, spec = RULES[rule]
    r = simulate(arrival, gpus, work, G, disc, deadline=deadline, preemptive=preemptive,
                 backfill=backfill)
    start, finish, preempted = oracle(arrival, gpus, work, G, spec, preemptive=preemptive,
                                      backfill=backfill, deadline=deadline)
    assert r.start.tolist() == start
    assert r.finish.tolist() == finish
    assert r.preemptions.tolist() == preempted


def test_oracle_can_tell_disciplines_apart():
    """The comparison above has teeth: the oracle's own answers differ by discipline."""
    args = ([0, 0, 1], [1, 1, 1], [5, 2, 1], 1)
    kw = {"preemptive": True, "backfill": True, "deadline": [3, 9, 1]}
    finishes = {name: tuple(oracle(*args, spec, **kw)[1]) for name, (_, spec) in RULES.items()}
    assert len(set(finishes.values())) >= 4
    assert finishes["fifo"] == (5, 7, 8) and finishes["srtf"] == (8, 2, 3)


# ----------------------------------------------------------------------------------------
# hand-worked examples
# ----------------------------------------------------------------------------------------


def test_srtf_one_gpu_three_jobs():
    r = simulate([0, 0, 0], [1, 1, 1], [3, 1, 2], 1, "srtf")
    assert r.finish.tolist() == [6, 1, 3] and r.mean_jct == pytest.approx(10 / 3)


def test_srtf_textbook_example_with_arrivals():
    """SRPT on arrivals 0,1,2,3 and bursts 8,4,9,5: JCTs 17, 4, 24, 7 (mean 13)."""
    arrival, work = [0, 1, 2, 3], [8, 4, 9, 5]
    pre = simulate(arrival, [1] * 4, work, 1, "srtf")
    assert pre.finish.tolist() == [17, 5, 26, 10] and pre.jct.tolist() == [17, 4, 24, 7]
    assert pre.mean_jct == 13 and pre.preemptions.tolist() == [1, 0, 0, 0]
    # TITAN's baseline is non-preemptive SRTF: A runs to 8, then B, D, C
    non = simulate(arrival, [1] * 4, work, 1, "srtf", preemptive=False)
    assert non.finish.tolist() == [8, 12, 26, 17] and non.mean_jct == 14.25
    assert non.preemptions.sum() == 0


@pytest.mark.parametrize("a, b, jct", [(20, 20, 30), (10, 20, 20), (5, 100, 55)])
def test_titan_table2_srtf_column(a, b, jct):
    """TITAN Table 2: two jobs on the same GPUs, average JCT of SRTF (minutes)."""
    r = simulate([0, 0], [64, 64], [a, b], 64, "srtf", preemptive=False)
    assert r.mean_jct == jct


def test_fifo_versus_sjf():
    arrival, gpus, work = [0, 0, 0], [1, 1, 1], [4, 1, 2]
    fifo = simulate(arrival, gpus, work, 1, "fifo", preemptive=False)
    sjf = simulate(arrival, gpus, work, 1, "sjf", preemptive=False)
    assert fifo.finish.tolist() == [4, 5, 7] and fifo.mean_jct == pytest.approx(16 / 3)
    assert sjf.finish.tolist() == [7, 1, 3] and sjf.mean_jct == pytest.approx(11 / 3)
    # SJF by GPU time: a short wide job is "bigger" than a longer narrow one
    wide = simulate([0, 0], [4, 1], [2, 5], 4, SJF("gpu_time"), preemptive=False)
    narrow = simulate([0, 0], [4, 1], [2, 5], 4, SJF(), preemptive=False)
    assert wide.start.tolist() == [5, 0] and narrow.start.tolist() == [0, 2]


def test_las_with_a_quantum_takes_turns():
    r = simulate([0, 0], [1, 1], [3, 3], 1, LAS(quantum_s=1))
    assert r.finish.tolist() == [5, 6] and r.preemptions.tolist() == [2, 2]
    runs = r.log_time[r.log_kind == RUN].tolist()
    jobs = r.log_job[r.log_kind == RUN].tolist()
    assert list(zip(runs, jobs, strict=True)) == [(0, 0), (1, 1), (2, 0), (3, 1), (4, 0), (5, 1)]


def test_las_without_a_quantum_decides_only_at_events():
    # B (no service yet) preempts A at its arrival, then keeps the GPU until it finishes
    r = simulate([0, 1], [1, 1], [4, 2], 1, "las")
    assert r.finish.tolist() == [6, 3] and r.preemptions.tolist() == [1, 0]


def test_tiresias_demotes_at_the_threshold():
    # queue 0 below 2 s of service; A is demoted at t=2, B at t=4, then FIFO in queue 1
    r = simulate([0, 1], [1, 1], [5, 3], 1, Tiresias(2, "time"))
    assert r.finish.tolist() == [7, 8] and r.preemptions.tolist() == [1, 1]
    assert r.start.tolist() == [0, 2]
    # the 2D threshold counts GPU-seconds: a 2-GPU job reaches 4 GPU-s after 2 s
    r2 = simulate([0, 1], [2, 2], [5, 3], 2, Tiresias(4))
    assert r2.finish.tolist() == [7, 8]


def test_edf_orders_by_deadline():
    r = simulate([0, 0, 0], [1, 1, 1], [3, 2, 1], 1, "edf", deadline=[10, 5, 7])
    assert r.finish.tolist() == [6, 2, 3]


def test_backfill_lets_narrow_jobs_pass_a_blocked_wide_one():
    arrival, gpus, work = [0, 0, 0], [1, 2, 1], [10, 1, 1]
    yes = simulate(arrival, gpus, work, 2, "fifo", preemptive=False, backfill=True)
    no = simulate(arrival, gpus, work, 2, "fifo", preemptive=False, backfill=False)
    assert yes.finish.tolist() == [10, 11, 1]
    assert no.finish.tolist() == [10, 11, 12]


def test_preemptive_fifo_takes_back_a_backfilled_job():
    # job 2 is backfilled at t=0; at t=10 the earlier wide job 1 needs both GPUs
    r = simulate([0, 0, 0], [1, 2, 1], [10, 1, 15], 2, "fifo", preemptive=True)
    assert r.finish.tolist() == [10, 11, 16] and r.preemptions.tolist() == [0, 0, 1]


def test_busy_gpus_step_function():
    r = simulate([0, 0, 1], [1, 2, 1], [4, 1, 1], 3, "fifo")
    time, busy = busy_gpus(r)
    assert time.tolist() == [0, 1, 2, 4] and busy.tolist() == [3, 2, 1, 0]


# ----------------------------------------------------------------------------------------
# invariants on the event log
# ----------------------------------------------------------------------------------------


def _intervals(r):
    """Per job, the [begin, end) spans it held its GPUs, from the log alone."""
    spans, open_at = {j: [] for j in range(r.arrival.size)}, {}
    for t, j, kind in zip(r.log_time.tolist(), r.log_job.tolist(), r.log_kind.tolist(),
                          strict=True):
        if kind == RUN:
            assert j not in open_at
            open_at[j] = t
        else:
            assert kind in (PREEMPT, FINISH)
            spans[j].append((open_at.pop(j), t))
    assert not open_at
    return spans


finite = st.floats(0, 1e4, allow_nan=False, allow_infinity=False)


@st.composite
def float_instances(draw):
    G = draw(st.integers(1, 8))
    n = draw(st.integers(0, 25))
    arrival = draw(st.lists(finite, min_size=n, max_size=n))
    gpus = draw(st.lists(st.integers(1, G), min_size=n, max_size=n))
    work = draw(st.lists(st.floats(1e-3, 1e4), min_size=n, max_size=n))
    return arrival, gpus, work, G


DISCIPLINE_CASES = [FIFO(), SJF(), SRTF(), SRTF("gpu_time"), LAS(), LAS(quantum_s=500.0),
                    Tiresias(500.0), Tiresias(33.3, "time")]


@pytest.mark.slow
@pytest.mark.parametrize("disc", DISCIPLINE_CASES, ids=repr)
@pytest.mark.parametrize("preemptive", [True, False])
@pytest.mark.parametrize("backfill", [True, False])
@settings(max_examples=25, deadline=None)
@given(case=float_instances())
def test_log_invariants(disc, preemptive, backfill, case):
    arrival, gpus, work, G = case
    r = simulate(arrival, gpus, work, G, disc, preemptive=preemptive, backfill=backfill)
    a, g, w = np.array(arrival), np.array(gpus), np.array(work)
    spans = _intervals(r)
    served = np.array([sum(e - b for b, e in spans[j]) for j in range(a.size)])
    np.testing.assert_allclose(served, w, rtol=1e-9, atol=1e-9)  # each job gets its work
    busy_gpu_time = sum(g[j] * (e - b) for j in spans for b, e in spans[j])
    assert busy_gpu_time == pytest.approx(float(g @ w), rel=1e-9, abs=1e-9)
    for j in range(a.size):
        assert spans[j][0][0] == r.start[j] >= a[j]  # no service before arrival
        assert spans[j][-1][1] == r.finish[j]
        assert len(spans[j]) == r.preemptions[j] + 1
    if not preemptive:
        assert r.preemptions.sum() == 0
    np.testing.assert_array_equal(r.jct, r.finish - a)
    # never more than G GPUs busy; under backfill no waiting job fits the free GPUs
    epochs = sorted(set(r.log_time.tolist()) | set(a.tolist()))
    for t in epochs:
        on = [j for j in spans if any(b <= t < e for b, e in spans[j])]
        busy = int(g[on].sum()) if on else 0
        assert busy <= G
        waiting = [j for j in range(a.size) if a[j] <= t < r.finish[j] and j not in on]
        if backfill and waiting:
            assert g[waiting].min() > G - busy
    if r.log_time.size:
        times, level = busy_gpus(r)
        assert level.max() <= G and level[-1] == 0


@settings(max_examples=40, deadline=None)
@given(case=float_instances())
def test_fifo_non_preemptive_serves_in_arrival_order(case):
    arrival, gpus, work, G = case
    r = simulate(arrival, gpus, work, G, "fifo", preemptive=False, backfill=False)
    order = np.lexsort((np.arange(len(arrival)), arrival))
    assert (np.diff(r.start[order]) >= 0).all()
    one = simulate(arrival, [1] * len(arrival), work, 1, "fifo", preemptive=False)
    free_at = -math.inf
    for j in order:  # a single server: each job starts when it arrives or the last leaves
        assert one.start[j] == max(arrival[j], free_at)
        free_at = one.finish[j]
    assert (np.diff(one.finish[order]) > 0).all()


# ----------------------------------------------------------------------------------------
# determinism, state, traces
# ----------------------------------------------------------------------------------------


def _same(r1, r2):
    for field in ("start", "finish", "jct", "preemptions", "log_time", "log_job", "log_kind"):
        assert getattr(r1, field).tobytes() == getattr(r2, field).tobytes(), field
    assert r1.epochs == r2.epochs


@pytest.fixture(scope="module")
def day():
    return filter_jobs(job_window("philly", "median"), duration_s=(300, 36_000))


@pytest.mark.parametrize("name", ["fifo", "sjf", "srtf", "las"])
def test_same_input_same_result_bit_for_bit(day, name):
    runs = [simulate(day.submit_s, day.num_gpus, day.duration_s, 64, name) for _ in range(2)]
    _same(*runs)


def test_snapshot_restore_replays_exactly(day):
    engine = JobEngine(day.submit_s, day.num_gpus, day.duration_s, 64, Tiresias(3600.0))
    assert not engine.run(max_epochs=200)
    state = engine.snapshot()
    assert engine.run()
    first = engine.result()
    engine.restore(state)
    assert engine.epochs == 200 and not engine.done
    engine.run()
    _same(first, engine.result())
    fresh = JobEngine(day.submit_s, day.num_gpus, day.duration_s, 64, Tiresias(3600.0))
    fresh.restore(state)  # a state moves to another engine of the same jobs
    fresh.run()
    _same(first, fresh.result())
    assert state["epochs"] == 200  # the snapshot itself was not touched


def test_a_trace_day_on_a_64_gpu_pool(day):
    """TITAN's setting (64 GPUs, jobs of 5 min to 10 h): every job finishes, JCT >= work."""
    results = {name: simulate(day.submit_s, day.num_gpus, day.duration_s, 64, name,
                              preemptive=False) for name in ("fifo", "srtf")}
    for r in results.values():
        assert np.isfinite(r.finish).all() and (r.jct >= day.duration_s - 1e-9).all()
    assert results["srtf"].mean_jct < results["fifo"].mean_jct
    assert mean_jct(results["fifo"]) == pytest.approx(results["fifo"].jct.mean())


def test_no_jobs():
    r = simulate([], [], [], 4)
    assert r.finish.size == 0 and r.log_time.size == 0 and r.makespan == 0.0
    with pytest.raises(ValueError, match="mean_jct: no jobs"):
        mean_jct(r)


# ----------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------

OK = {"arrival": [0, 1, 2], "gpus": [1, 2, 1], "work": [5, 5, 5], "total_gpus": 2}


@pytest.mark.parametrize("change, match", [
    ({"total_gpus": 0}, "'total_gpus' must be a whole number >= 1, got 0"),
    ({"total_gpus": 2.5}, "'total_gpus' must be a whole number >= 1"),
    ({"gpus": [1, 3, 1]}, "job 1: 'gpus' = 3 exceeds the pool's 2 GPUs"),
    ({"gpus": [1, 0, 1]}, "job 1: 'gpus' = 0 must be a whole number >= 1"),
    ({"gpus": [1, 1, 1.5]}, "job 2: 'gpus' = 1.5 must be a whole number >= 1"),
    ({"work": [5, 5, -1]}, "job 2: 'work' = -1 must be positive and finite"),
    ({"work": [0, 5, 5]}, "job 0: 'work' = 0 must be positive and finite"),
    ({"work": [5, np.inf, 5]}, "job 1: 'work' = inf must be positive and finite"),
    ({"arrival": [0, np.nan, 2]}, "job 1: 'arrival' = nan must be finite"),
    ({"work": [5, 5]}, "'work' has 2 entries, 'arrival' has 3"),
    ({"arrival": [[0, 1, 2]]}, "'arrival' must be 1-d"),
    ({"gpus": ["a", 1, 1]}, "'gpus' must be an array of numbers"),
    ({"discipline": "edf"}, "discipline 'edf' needs 'deadline'"),
    ({"discipline": "edf", "deadline": [1, 2]}, "'deadline' has 2 entries, 'arrival' has 3"),
    ({"deadline": [1, np.nan, 2]}, "job 1: 'deadline' = nan must be finite"),
    ({"discipline": "round-robin"}, "discipline must be one of"),
    ({"preemptive": "yes"}, "'preemptive' must be True or False"),
    ({"backfill": None}, "'backfill' must be True or False"),
])
def test_named_errors(change, match):
    with pytest.raises(ValueError, match=match):
        simulate(**{**OK, **change})


@pytest.mark.parametrize("make, match", [
    (lambda: SJF("gpus"), "SJF: 'service' must be one of"),
    (lambda: SRTF(service=None), "SRTF: 'service' must be one of"),
    (lambda: LAS(quantum_s=0), "LAS: 'quantum_s' must be a positive finite number"),
    (lambda: Tiresias(-1), "Tiresias: 'threshold' must be a positive finite number"),
    (lambda: Tiresias(math.inf), "Tiresias: 'threshold' must be a positive finite number"),
    (lambda: discipline("tiresias"), "discipline 'tiresias': bad options"),
    (lambda: discipline("las", speed=2), "discipline 'las': bad options"),
    (lambda: discipline(FIFO(), quantum_s=1), "given with a ready-made discipline"),
    (lambda: JobEngine(**OK).run(max_epochs=-1), "'max_epochs' must be a whole number >= 0"),
])
def test_discipline_and_engine_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_discipline_factory():
    assert set(DISCIPLINES) == {"fifo", "sjf", "srtf", "las", "tiresias", "edf"}
    assert discipline("LAS", quantum_s=5) == LAS(quantum_s=5)
    assert discipline("tiresias", threshold=10).service == "gpu_time"
    fifo = FIFO()
    assert discipline(fifo) is fifo


# ----------------------------------------------------------------------------------------
# restart overhead (context switch on every start and resume)
# ----------------------------------------------------------------------------------------


def test_overhead_fifo_non_preemptive():
    r = simulate([0, 0], [1, 1], [100, 50], 1, "fifo", preemptive=False, overhead=[10, 5])
    assert r.start.tolist() == [0, 110] and r.finish.tolist() == [110, 165]
    assert r.overhead.tolist() == [10, 5] and r.switch_seconds == 15
    assert r.preemptions.sum() == 0


def test_overhead_is_paid_again_on_resume():
    # job 0 switches 0..10 and works 10..50 (40 done, 60 left); job 1 runs 50..80
    # (10 switch + 20 work); job 0 resumes at 80 and pays its switch again: 80 + 10 + 60
    r = simulate([0, 50], [1, 1], [100, 20], 1, "srtf", overhead=[10, 10])
    assert r.finish.tolist() == [150, 80] and r.start.tolist() == [0, 50]
    assert r.preemptions.tolist() == [1, 0]
    assert r.switch_seconds == 30
    runs = list(zip(r.log_time.tolist(), r.log_job.tolist(), r.log_kind.tolist(), strict=True))
    assert runs == [(0, 0, RUN), (50, 0, PREEMPT), (50, 1, RUN), (80, 1, FINISH),
                    (80, 0, RUN), (150, 0, FINISH)]


def test_preemption_during_a_switch_loses_no_work():
    # job 0 is still in its 30 s switch at t=10: it did no work, 100 left
    r = simulate([0, 10], [1, 1], [100, 5], 1, "srtf", overhead=[30, 0])
    assert r.finish.tolist() == [145, 15] and r.preemptions.tolist() == [1, 0]
    assert r.switch_seconds == 10 + 30  # the interrupted switch (0..10), the full one


def test_overhead_engine_state_mid_switch():
    engine = JobEngine([0, 50], [1, 1], [100, 20], 1, "srtf", overhead=[10, 10])
    engine.run(max_epochs=2)  # t=0 (job 0 starts), t=50 (job 1 preempts it)
    assert engine.now == 50 and engine.remaining.tolist() == [60, 20]
    assert engine.end[1] == 80 and engine.resumed[1] == 50 and np.isnan(engine.resumed[0])


def test_overhead_tiresias_attained_counts_work_only():
    # threshold 5 s of work: job 0 (switch 10) is demoted at 10 + 5 = 15, not at 5
    r = simulate([0, 1], [1, 1], [20, 3], 1, Tiresias(5, "time"), overhead=[10, 0])
    # job 1 arrives at 1 (queue 0, later arrival): job 0 keeps the GPU; at 15 job 0 is
    # demoted, job 1 runs 15..18, job 0 resumes at 18: 18 + 10 + 15 = 43
    assert r.finish.tolist() == [43, 18] and r.preemptions.tolist() == [1, 0]


@pytest.mark.parametrize("disc, preemptive", [(Tiresias(300.0), True), ("srtf", False),
                                              (LAS(quantum_s=50.0), True)])
def test_zero_overhead_is_bit_identical(disc, preemptive):
    rng = np.random.default_rng(7)
    n = 30
    arrival = np.sort(rng.uniform(0, 2000, n))
    gpus = rng.integers(1, 5, n)
    work = rng.uniform(10, 1000, n)
    plain = simulate(arrival, gpus, work, 6, disc, preemptive=preemptive)
    zero = simulate(arrival, gpus, work, 6, disc, preemptive=preemptive, overhead=np.zeros(n))
    _same(plain, zero)
    assert plain.overhead.tolist() == [0.0] * n and plain.switch_seconds == 0.0
    if preemptive:
        assert plain.preemptions.sum() > 0  # the comparison covers resumes


@pytest.mark.parametrize("overhead, match", [
    ([0, -1, 0], "job 1: 'overhead' = -1 must be non-negative and finite"),
    ([0, 0, np.nan], "job 2: 'overhead' = nan must be non-negative and finite"),
    ([np.inf, 0, 0], "job 0: 'overhead' = inf must be non-negative and finite"),
    ([1, 2], "'overhead' has 2 entries, 'arrival' has 3"),
    ([[1, 2, 3]], "'overhead' must be 1-d"),
])
def test_bad_overhead(overhead, match):
    with pytest.raises(ValueError, match=match):
        simulate(**OK, overhead=overhead)


@pytest.mark.parametrize("disc", [Tiresias(3600.0), LAS(quantum_s=600.0), SRTF()], ids=repr)
def test_overhead_snapshot_restore_replays_exactly(day, disc):
    rng = np.random.default_rng(3)
    overhead = rng.uniform(0, 120, day.submit_s.size)
    make = lambda: JobEngine(day.submit_s, day.num_gpus, day.duration_s, 64, disc,  # noqa: E731
                             overhead=overhead)
    engine = make()
    assert not engine.run(max_epochs=150)
    state = engine.snapshot()
    assert engine.run()
    first = engine.result()
    engine.restore(state)
    engine.run()
    _same(first, engine.result())
    fresh = make()
    fresh.restore(state)
    fresh.run()
    _same(first, fresh.result())
    assert first.switch_seconds == engine.result().switch_seconds > 0
    assert (first.jct >= day.duration_s + overhead - 1e-6).all()


@pytest.mark.parametrize("disc", DISCIPLINE_CASES, ids=repr)
@pytest.mark.parametrize("preemptive", [True, False])
@settings(max_examples=25, deadline=None)
@given(case=float_instances(), data=st.data())
def test_overhead_log_invariants(disc, preemptive, case, data):
    """Each job's run intervals hold its work plus one switch per interval, except that
    an interval cut short during its switch holds no work."""
    arrival, gpus, work, G = case
    overhead = data.draw(st.lists(st.floats(0, 100), min_size=len(arrival),
                                  max_size=len(arrival)))
    r = simulate(arrival, gpus, work, G, disc, preemptive=preemptive, overhead=overhead)
    spans = _intervals(r)
    for j in range(len(arrival)):
        done = sum(max(0.0, e - b - overhead[j]) for b, e in spans[j])
        assert done == pytest.approx(work[j], rel=1e-9, abs=1e-6)
        assert spans[j][-1][1] - spans[j][-1][0] >= overhead[j]  # the last switch is paid
        assert len(spans[j]) == r.preemptions[j] + 1
    switch = sum(min(e - b, overhead[j]) for j in spans for b, e in spans[j])
    assert r.switch_seconds == pytest.approx(switch, rel=1e-12, abs=1e-9)


# ----------------------------------------------------------------------------------------
# periodic scheduling (tick_s)
# ----------------------------------------------------------------------------------------


def test_a_tick_makes_arrivals_wait_and_leaves_gpus_idle_until_it():
    """One GPU, ticks of 10 s: A (arrives 1, work 4) starts at 10 and finishes at 14
    exactly; B (arrives 2, work 3) gets the GPU only at the next tick, 20, and ends at 23."""
    r = simulate([1, 2], [1, 1], [4, 3], 1, "fifo", preemptive=False, tick_s=10)
    assert r.start.tolist() == [10, 20] and r.finish.tolist() == [14, 23]
    assert r.jct.tolist() == [13, 21]
    event = simulate([1, 2], [1, 1], [4, 3], 1, "fifo", preemptive=False)
    assert event.start.tolist() == [1, 5] and event.finish.tolist() == [5, 8]
    # the log stays in time order, finishes at their own times
    assert np.all(np.diff(r.log_time) >= 0) and 14 in r.log_time.tolist()


def test_tick_zero_is_event_driven_bit_for_bit():
    rng = np.random.default_rng(3)
    arrival, work = rng.uniform(0, 50, 30), rng.uniform(1, 20, 30)
    gpus = rng.integers(1, 4, 30)
    for rule, pre in (("srtf", False), (Tiresias(threshold=20.0), True)):
        a = simulate(arrival, gpus, work, 4, rule, preemptive=pre)
        b = simulate(arrival, gpus, work, 4, rule, preemptive=pre, tick_s=0.0)
        assert np.array_equal(a.finish, b.finish) and np.array_equal(a.log_time, b.log_time)


def test_preemptive_reviews_wait_for_the_tick():
    """Tiresias with a 2 GPU-s threshold on one GPU: A (work 5) is demoted at 2 s, but
    with ticks of 3 s the swap to B (arrived at 1, waiting for the tick) happens at 3."""
    r = simulate([0, 1], [1, 1], [5, 5], 1, Tiresias(threshold=2.0), tick_s=3)
    kinds = list(zip(r.log_time.tolist(), r.log_job.tolist(), r.log_kind.tolist(),
                     strict=True))
    assert kinds[:3] == [(0.0, 0, RUN), (3.0, 0, PREEMPT), (3.0, 1, RUN)]
    assert all(t % 3 == 0 for t, _, k in kinds if k != FINISH)


@pytest.mark.parametrize("bad", [-1.0, math.inf, math.nan, "60", True])
def test_a_bad_tick_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="'tick_s'"):
        simulate([0], [1], [1], 1, tick_s=bad)


# ---------------------------------------------------------------- the authors' simulator


def test_tiresias_counting_switches_demotes_earlier():
    # threshold 5 s: counting the 10 s switch as service, job 0 reaches it at 5 (inside its
    # switch), so job 1 (arrived at 1, queue 0) takes the GPU at 5 and runs 5..8; job 0
    # resumes at 8 and pays its switch again: 8 + 10 + 20 = 38
    r = simulate([0, 1], [1, 1], [20, 3], 1, Tiresias(5, "time", switches=True),
                 overhead=[10, 0])
    assert r.finish.tolist() == [38, 8] and r.preemptions.tolist() == [1, 0]
    # without: the work alone counts (test above), 43
    plain = simulate([0, 1], [1, 1], [20, 3], 1, Tiresias(5, "time"), overhead=[10, 0])
    assert plain.finish.tolist() == [43, 18]
    with pytest.raises(InputError, match="'switches' must be True or False"):
        Tiresias(5, switches="yes")


def test_srtf_estimate_reorders_by_the_misjudged_length():
    # job 0 (10 s) before job 1 (12 s); judged 1.5 times longer, job 0 (15) goes after
    exact = simulate([0, 0], [1, 1], [10, 12], 1, "srtf", preemptive=False)
    assert exact.finish.tolist() == [10, 22]
    judged = simulate([0, 0], [1, 1], [10, 12], 1, SRTF(estimate=(1.5, 1.0)),
                      preemptive=False)
    assert judged.finish.tolist() == [22, 12]
    for bad in ((0.0, 1.0), (math.nan, 1.0), ((1.0,),)):
        with pytest.raises(InputError, match="'estimate' must be positive"):
            SRTF(estimate=bad)


def test_fewest_nodes_places_as_the_authors_consolidation():
    free = np.array([4, 2, 3, 4])
    assert fewest_nodes(2, free, 4).tolist() == [0, 2, 0, 0]     # the fullest it fits on
    assert fewest_nodes(4, free, 4).tolist() == [4, 0, 0, 0]     # lowest of equals
    assert fewest_nodes(7, free, 4).tolist() == [4, 0, 0, 3]     # freest first, stable
    assert fewest_nodes(9, free, 4).tolist() == [4, 0, 1, 4]     # three nodes: the fewest
    assert fewest_nodes(8, np.array([4, 3, 3, 2]), 4) is None    # 4 + 3 + 1: three for eight
    assert fewest_nodes(6, np.array([2, 2, 2, 2]), 4) is None    # three nodes for six
    assert fewest_nodes(3, np.array([2, 2, 2, 2]), 4) is None    # no node holds three
    assert fewest_nodes(16, free, 4) is None                     # more than the pool


def test_a_job_split_beyond_its_fewest_nodes_waits():
    # two nodes of 4 GPUs: jobs of 3 and 3 GPUs leave one GPU free on each; the 2-GPU job
    # submitted at 1 finds two free GPUs in the pool but no node with two, so it waits for
    # job 0 (done at 10); on one pool it starts at once
    args = ([0, 0, 1, 2], [3, 3, 2, 2], [10, 20, 30, 5], 8, "fifo")
    nodes = simulate(*args, preemptive=False, gpus_per_node=4)
    assert nodes.start.tolist()[2] == 10
    assert simulate(*args, preemptive=False).start.tolist()[2] == 1
    # jobs that fit on a node each start as on one pool
    fits = ([0, 0, 0, 1], [2, 2, 2, 2], [10, 20, 30, 5], 8, "fifo")
    assert simulate(*fits, preemptive=False, gpus_per_node=4).start.tolist() == \
        simulate(*fits, preemptive=False).start.tolist() == [0, 0, 0, 1]
    with pytest.raises(InputError, match="multiple of 'gpus_per_node'"):
        simulate([0], [1], [1], 6, "fifo", gpus_per_node=4)


def test_nodes_snapshot_restore_replays_exactly():
    args = ([0, 0, 1, 2, 3], [3, 3, 2, 2, 4], [10, 20, 30, 5, 7], 8, "srtf")
    whole = simulate(*args, preemptive=True, gpus_per_node=4)
    engine = JobEngine(*args, preemptive=True, gpus_per_node=4)
    engine.run(max_epochs=2)
    state = engine.snapshot()
    engine.run()
    again = JobEngine(*args, preemptive=True, gpus_per_node=4)
    again.restore(state)
    again.run()
    assert np.array_equal(again.result().finish, whole.finish)
    assert again.node_free.tolist() == [4, 4]  # every job gave its GPUs back
