"""The policies' free constants tuned alike on the held-out day: pdFTSP's α and β
(:func:`calibration`), the baselines' posted price or markup (:func:`baseline_calibration`),
and pdFTSP's two settings as the figures' compound axis (:func:`pdftsp_constants`)."""

from __future__ import annotations

from pathlib import Path

from ...experiments import calibrate as _calibrate
from ...pdftsp.auction import ALPHA_GRID, BETA_GRID
from ...pdftsp.baselines import cost_plus as _cost_plus
from ...pdftsp.pricing import PRICE_GRID
from ...pdftsp.scenario import to_arrays
from ...pdftsp.workload import synthetic_scenario
from ..base import check_size, default_store
from .common import CALIBRATION_SEEDS, base

_CALIBRATIONS: dict = {}


def calibration_grid() -> dict:
    """The alpha x beta grid scanned on the calibration day (and, on the calibration page,
    on the evaluation days)."""
    return {"alpha": list(ALPHA_GRID), "beta": list(BETA_GRID)}


def calibration(size: str = "small", store=None) -> _calibrate.Calibration:
    """pdFTSP's alpha and beta calibrated on the held-out day: the scan of
    :func:`calibration_grid` on :func:`base` with seed 101, maximising welfare (run once into
    ``store``, default the figures' store, then read back; cached in the process)."""
    check_size(size)
    store = Path(default_store(size) if store is None else store)
    key = (size, str(store.resolve()))
    if key not in _CALIBRATIONS:
        _CALIBRATIONS[key] = _calibrate.calibrate(
            "pdftsp", "pdftsp", base(size), calibration_grid(), seeds=CALIBRATION_SEEDS,
            store=store, serial=True, progress=False)
    return _CALIBRATIONS[key]


#: the baselines tuned like pdFTSP, each by its one free option: EFT's and NTM's posted
#: price per sample, cost-plus's markup over cost. Titan is not: its admissions never read
#: a bid or a price, so its welfare is the same at every posted price up to v_min, and
#: above v_min it would charge users more than they bid
TUNED = {"eft": "price_per_sample", "ntm": "price_per_sample", "cost_plus": "markup"}
_BASELINE_CALIBRATIONS: dict = {}


def value_density_min(size: str = "small") -> float:
    """The base scenario's declared lowest value per sample v_min (the same on every seed),
    the untuned posted price per sample."""
    return value_density_min_of(base(size))


def value_density_min_of(scenario: dict) -> float:
    """The declared lowest value per sample v_min of the scenario ``synthetic_scenario``
    builds from ``scenario`` (the same on every seed)."""
    arrays = to_arrays(synthetic_scenario(**scenario, seed=CALIBRATION_SEEDS[0]))
    return float(arrays.value_density_min)


def baseline_grid(algorithm: str, size: str = "small") -> dict:
    """The grid a baseline of :data:`TUNED` is scanned over: ``price_per_sample`` at the
    multiples :data:`~lorasched.pdftsp.pricing.PRICE_GRID` of v_min, or ``markup`` over
    :data:`~lorasched.pdftsp.baselines.cost_plus.MARKUP_GRID`."""
    option = TUNED[algorithm]
    if option == "markup":
        return {option: list(_cost_plus.MARKUP_GRID)}
    v_min = value_density_min(size)
    return {option: [m * v_min for m in PRICE_GRID]}


def baseline_default(algorithm: str, size: str = "small") -> dict:
    """A baseline's untuned setting, as an option: the posted price v_min, or cost-plus's
    default markup."""
    option = TUNED[algorithm]
    if option == "markup":
        return {option: _cost_plus.DEFAULT_MARKUP}
    return {option: value_density_min(size)}


def baseline_calibration(algorithm: str, size: str = "small",
                         store=None) -> _calibrate.Calibration:
    """A baseline's option tuned as pdFTSP's constants are (:func:`calibration`): the scan
    of :func:`baseline_grid` on the held-out day, maximising welfare (run once into
    ``store``, default the figures' store; cached in the process)."""
    check_size(size)
    store = Path(default_store(size) if store is None else store)
    key = (algorithm, size, str(store.resolve()))
    if key not in _BASELINE_CALIBRATIONS:
        _BASELINE_CALIBRATIONS[key] = _calibrate.calibrate(
            "pdftsp", algorithm, base(size), baseline_grid(algorithm, size),
            seeds=CALIBRATION_SEEDS, store=store, serial=True, progress=False)
    return _BASELINE_CALIBRATIONS[key]


def pdftsp_constants(size: str = "small") -> dict:
    """pdFTSP's two settings as a compound axis: the Lemma-2 rule and the constants
    calibrated on the held-out day (:func:`calibration`)."""
    chosen = calibration(size).options
    return {"Lemma 2": {"constants": "lemma2"},
            "calibrated": {"alpha": float(chosen["alpha"]), "beta": float(chosen["beta"])}}
