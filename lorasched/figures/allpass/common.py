"""What Allpass's section-5 pages share: sizes, the policies and their names, the paper's
numbers, and the one batch of runs behind Figs. 6-12.

Sizes
-----
``"full"`` is the paper's setting: 200 jobs (a Helios Venus window, durations / 5 and
inter-arrival times / 15, work scaled to the paper's implied 332 A100-h, :mod:`lorasched.
allpass.workload`), the limited (30 serverful A100s) and the unlimited setup, every policy,
seeds 1-3 (± : one standard deviation over seeds). ``"small"`` runs 40 jobs and 2 seeds so
that every page runs in seconds.

Every run is kept whole (per-job JCTs, leases, ticks), not reduced to a metric: the pages
draw CDFs and timelines. A run takes about half a second, so the pages run them directly
(:func:`runs`) rather than through the sweep store, and keep the batch in one file under the
figure store (``<store>/allpass/<code fingerprint>-<seeds>.pkl``, without the offer book,
which is rebuilt from the scenario), so that ``lorasched reproduce`` computes it once for
every page and any change to the library's code recomputes it. The readings page adds the
other readings (:data:`READINGS`, limited setup) and two runs outside the paper's text
(:data:`BEYOND_TEXT`, both setups) to the same batch. A sweep with ``system =
"allpass"`` gives the same metrics cell by cell (:mod:`lorasched.experiments`).
"""

from __future__ import annotations

import functools
import pickle
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr
from tqdm.auto import tqdm

from ... import systems
from ...allpass.policies import LABELS
from ...allpass.scalers import F0
from ...allpass.scenario import allpass_scenario
from ...experiments import Sweep
from ...experiments.grid import code_fingerprint
from ..base import Figure, atomic_file, check_size, default_store

#: the two deployment setups of sec. 5.1, as the scenario's capacity
SETUPS = {"limited": 30, "unlimited": "none"}
SETUP_NAMES = {"limited": "limited capacity (30 serverful A100s)",
               "unlimited": "unlimited capacity"}
#: every policy, in the paper's order of appearance
ALGORITHMS = ["allpass", "tl_np", "tl_p", "sjf_np", "sjf_p", "hpa", "modal",
              "allpass_fixed60", "allpass_fixed600"]
#: the other readings of the paper, run in the limited setup: key -> (policy, options, label)
READINGS = {
    "allpass_literal": ("allpass", {"reading": "literal"},
                        "Algorithm 2 as printed (D - C, a rate from work)"),
    "allpass_window": ("allpass", {"overdue": False},
                       "eq. (1)'s literal window (t, t + T]: overdue jobs add no demand"),
    "allpass_overhead": ("allpass", {"checkpoint_s": 140.0, "restore_s": 140.0},
                         "Fig. 8's 1.4 min as an average over all jobs: 1.4 / 0.3 = 4.7 min "
                         "per demotion (the paper's 70 % served serverless)"),
    "allpass_laxity": ("allpass", {"demand": "laxity"},
                       "lorasched's option, not the paper's: the work each window must "
                       "deliver for the deadlines to hold"),
}
#: runs outside the paper's text, in both setups (the readings page): key -> (policy,
#: options, label). The units slip is a hypothesis about the authors' code, never the
#: default; the queue-all oracle is lorasched's baseline, a floor under any provisioning rule
BEYOND_TEXT = {
    "allpass_slip": ("allpass", {"units": "slip"},
                     "units slip (a hypothesis about the authors' code): D's seconds against "
                     "C_t T in minutes, p 60 times larger"),
    "queue_all_oracle": ("queue_all_oracle", {},
                         f"oracle: F fixed at F0 = {F0:g} s, a worker rented for every "
                         "queued job at once, up to the cap"),
}
NAMES = dict(LABELS) | {"allpass_literal": "Allpass (literal Alg. 2)",
                        "allpass_window": "Allpass (literal window)",
                        "allpass_overhead": "Allpass (4.7 min per demotion)",
                        "allpass_laxity": "Allpass (necessary demand)",
                        "allpass_slip": "Allpass (units slip)"}
#: Fig. 6 (limited): share of jobs with JCT <= 10 min, percent
PAPER_FIG6 = {"allpass": 68.5, "tl_np": 12.5, "tl_p": 48.0, "sjf_np": 54.5, "sjf_p": 46.5}
#: Fig. 7: HPA's average JCT over Allpass's (unlimited)
PAPER_HPA_JCT_RATIO = 2.53
#: Fig. 8: Modal's wait, Allpass's queueing and demotion overhead, min; share not demoted
PAPER_FIG8 = {"modal_wait": 0.1, "allpass_queue": 0.4, "allpass_overhead": 1.4,
              "serverless_only": 0.70}
#: Fig. 9: USD (Allpass, Tiresias-L, SJF; Allpass's serverless part), cost ratios
PAPER_FIG9 = {"allpass": 236.69, "tl": 258.54, "sjf": 264.78, "allpass_serverless": 18.02,
              "hpa_ratio": 1.9, "modal_ratio": 2.95}
#: Fig. 10: most serverful workers under Allpass (cap 30), HPA's peak "over 60"
PAPER_FIG10 = {"allpass_peak": 27, "hpa_peak": 60}
#: Fig. 11: Allpass's median JCT (min) and its reduction against Fixed-60s / -600s, percent
PAPER_FIG11 = {"median": 2.86, "vs60": 71.01, "vs600": 35.94}
#: Fig. 12 / A.2: average marketplace price, savings against Lambda and Modal, percent
PAPER_FIG12 = {"price": 0.74, "vs_lambda": 42.6, "vs_modal": 64.7}
_JOBS = {"full": 200, "small": 40}
_SEEDS = {"full": 3, "small": 2}


def seed_list(size: str, seeds: int | None = None) -> list[int]:
    check_size(size)
    return list(range(1, (_SEEDS[size] if seeds is None else int(seeds)) + 1))


def _scenarios(size: str, seeds: tuple[int, ...]) -> dict:
    return {(setup, seed): allpass_scenario(jobs=_JOBS[size], capacity=SETUPS[setup],
                                            seed=seed)
            for setup in SETUPS for seed in seeds}


def _cache(store, size: str, seeds: tuple[int, ...]) -> Path | None:
    if store is False:
        return None
    folder = Path(default_store(size) if store is None else store) / "allpass"
    return folder / f"{code_fingerprint('allpass')}-{'_'.join(map(str, seeds))}.pkl"


@functools.lru_cache(maxsize=4)
def _runs(size: str, seeds: tuple[int, ...], progress: bool, path: Path | None) -> dict:
    scenarios = _scenarios(size, seeds)
    if path is not None and path.is_file():
        with path.open("rb") as fh:
            out = pickle.load(fh)
        for (setup, _, seed), result in out.items():
            result["price_per_gpu_h"] = scenarios[setup, seed]["price_per_gpu_h"]
        return out
    out = {}
    cells = [(setup, seed, alg) for setup in SETUPS for seed in seeds for alg in ALGORITHMS]
    cells += [("limited", seed, key) for seed in seeds for key in READINGS]
    cells += [(setup, seed, key) for setup in SETUPS for seed in seeds for key in BEYOND_TEXT]
    for setup, seed, alg in tqdm(cells, desc=f"Allpass runs ({size})", disable=not progress,
                                 leave=False):
        policy, options, _ = (READINGS | BEYOND_TEXT).get(alg, (alg, {}, ""))
        result = systems.simulate(scenarios[setup, seed], policy, seed=seed, **options)
        systems.check_result(result)
        out[setup, alg, seed] = result
    if path is not None:
        slim = {k: v.drop_vars("price_per_gpu_h") for k, v in out.items()}
        with atomic_file(path) as tmp, tmp.open("wb") as fh:
            pickle.dump(slim, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return out


def paper_sweep(size: str = "full", seeds: int | None = None) -> Sweep:
    """The pages' main runs as a sweep declaration: every policy of :data:`ALGORITHMS` in
    both setups (:data:`SETUPS`) on the pages' seeds. ``lorasched sweep`` on it gives the
    same metrics cell by cell as the pages' batch (:func:`runs`); the other readings and the
    runs beyond the text are options of one policy, so they stay in the batch.
    ``lorasched export-sweeps`` writes it as ``allpass_<size>.toml``."""
    return Sweep(name=f"allpass_{size}", system="allpass", base={"jobs": _JOBS[size]},
                 axes={"setup": {name: {"capacity": cap} for name, cap in SETUPS.items()}},
                 algorithms=tuple(ALGORITHMS), seeds=tuple(seed_list(size, seeds)),
                 description="Allpass and its baselines in the limited and unlimited "
                             "setups of sec. 5.1 (the runs behind Figs. 6-12)")


def runs(size: str = "small", seeds: int | None = None, progress: bool = False,
         store=None) -> dict:
    """Every checked run of the pages: ``(setup, algorithm, seed) -> result Dataset``.
    ``store``: the figure store folder (default :func:`..base.default_store`; ``False``:
    compute in memory only)."""
    chosen = tuple(seed_list(size, seeds))
    return _runs(size, chosen, progress, _cache(store, size, chosen))


def metrics(results: dict) -> xr.Dataset:
    """The :data:`lorasched.allpass.system.METRICS` of every run, over ``setup x
    algorithm x seed`` (the readings of :data:`READINGS` as algorithms, NaN in the
    unlimited setup, where they are not run; then the runs of :data:`BEYOND_TEXT`)."""
    system = systems.get("allpass")
    keys = sorted({k[2] for k in results})
    algorithms = ALGORITHMS + list(READINGS) + list(BEYOND_TEXT)
    data = {m: (("setup", "algorithm", "seed"),
                np.full((len(SETUPS), len(algorithms), len(keys)), np.nan))
            for m in system.metrics}
    ds = xr.Dataset(data, coords={"setup": list(SETUPS), "algorithm": algorithms,
                                  "seed": keys})
    for (setup, alg, seed), res in results.items():
        for m, v in system.measure(res, res).items():
            ds[m].loc[dict(setup=setup, algorithm=alg, seed=seed)] = v
    return ds


def mean_sd(da) -> tuple[float, float]:
    v = np.asarray(getattr(da, "values", da), dtype=float).ravel()
    return float(v.mean()), (float(v.std(ddof=1)) if v.size > 1 else 0.0)


def pct(x: float) -> str:
    """A share as a percentage with one decimal."""
    return f"{100 * x:.1f} %"


def fmt(ms: tuple[float, float], digits: int = 2) -> str:
    return f"{ms[0]:.{digits}f} ± {ms[1]:.{digits}f}"


class AllpassData:
    """The runs and their metrics, what every Allpass page reads."""

    def __init__(self, size: str, results: dict):
        self.size = size
        self.results = results
        self.metrics = metrics(results)
        self.seeds = sorted({k[2] for k in results})

    def m(self, metric: str, setup: str, algorithm: str) -> tuple[float, float]:
        """Mean and sd over seeds."""
        return mean_sd(self.metrics[metric].sel(setup=setup, algorithm=algorithm))

    def jct_min(self, setup: str, algorithm: str) -> np.ndarray:
        """Every job's JCT (min) over all seeds."""
        return np.concatenate([self.results[setup, algorithm, s]["jct_s"].values / 60
                               for s in self.seeds])

    def run(self, setup: str, algorithm: str, seed: int | None = None) -> xr.Dataset:
        return self.results[setup, algorithm, self.seeds[0] if seed is None else seed]


class AllpassFigure(Figure):
    """An Allpass page drawn from the shared runs."""

    system = "allpass"
    variant_column = "setup"
    data_name = "runs"  # every such page draws from the same runs: one data file

    def data(self, size: str = "small", *, store=None, seeds: int | None = None,
             workers=None, scheduler=None, serial=None, progress: bool = False):
        """The shared runs, from ``store``'s batch file or computed in-process
        (``workers``, ``scheduler`` and ``serial`` are accepted for the common
        signature)."""
        return AllpassData(size, runs(size, seeds, progress, store))

    def describe(self, data: AllpassData) -> str:
        first = data.run("limited", "allpass")
        work = data.metrics["work_h"].sel(setup="limited", algorithm="allpass").values
        return textwrap.fill(
            f"{first.sizes['job']} jobs per run from a {first.attrs['source']} window "
            f"(durations x {first.attrs['duration_scale']:g} x {first.attrs['work_scale']:.2f}"
            f" (sizing '{first.attrs['sizing']}'), inter-arrival times x "
            f"{first.attrs['iat_scale']:.4g}), A100-hours of work per seed: "
            + ", ".join(f"{w:.0f}" for w in work)
            + f". Seeds {', '.join(map(str, data.seeds))}; limited setup: "
            f"{SETUPS['limited']} serverful A100s; unlimited: no cap (± : one standard "
            "deviation over seeds).", width=76)


def paper_table(data: AllpassData, rows: list[tuple]) -> pd.DataFrame:
    """A table of (label, setup, algorithm, metric, digits, paper) rows: ours (mean ± sd)
    beside the paper's."""
    return pd.DataFrame([{"": label, "setup": setup, "policy": NAMES[alg],
                          "lorasched": fmt(data.m(metric, setup, alg), digits),
                          "paper": paper}
                         for label, setup, alg, metric, digits, paper in rows])

