"""Allpass's headline claims under other values of the numbers lorasched chose and in
settings with real contention (:data:`ALTERNATIVES`): the DBF window, Tiresias-L's first
queue limit, a smaller serverful
cap, where jobs queue and the ordering claims have something to order, and one fixed
trace, as the paper ran, where the seeds vary only the marketplace and the start-ups."""

from __future__ import annotations

from ...allpass.cluster import TIRESIAS_THRESHOLD_S
from ...allpass.pressure import WINDOW_S
from ...allpass.workload import HEADLINE_SOURCE
from ..base import Figure
from ..numbers import minutes
from ..sensitivity import CHOICE, CHOSEN, READING, SETTING, Alternative, SensitivityPage
from ..verdicts import PAPER
from .common import AllpassData, runs
from .declared import _SEEDS, SETUPS, Part, alternative_part, complete, kept_runs, parts
from .fig06 import Fig06
from .fig07 import Fig07
from .fig08 import Fig08
from .fig09 import Fig09
from .fig10 import Fig10
from .fig11 import Fig11
from .fig12 import Fig12

#: seeds per alternative, by size: the headline's (:data:`~.common._SEEDS`), so that the
#: column of lorasched's choice is the headline's verdicts and each alternative is judged
#: on the same seeds, paired (at full size about two minutes of the book's build in all)
SEEDS = dict(_SEEDS)
#: the pages whose claims are re-tested (Fig. 1 is the trace's, not a run's)
PAGES = (Fig06(), Fig07(), Fig08(), Fig09(), Fig10(), Fig11(), Fig12())

#: the policies that provision by the DBF (HPA's ``window_s`` is its downscale window, not T)
_DBF = ("allpass", "allpass_fixed60", "allpass_fixed600", "queue_all_oracle")

ALTERNATIVES = (
    Alternative("DBF window T", "10 min", options={"window_s": 600.0},
                source="a third of sec. 5.1's 30 min", policies=_DBF, kind=SETTING),
    Alternative("DBF window T", "60 min", options={"window_s": 3600.0},
                source="twice sec. 5.1's 30 min", policies=_DBF, kind=SETTING),
    Alternative("Tiresias-L's first queue limit", "10 min", options={"threshold_s": 600.0},
                source="a sixth of lorasched's hour: TL-P can preempt within Fig. 6's "
                       "ten minutes", kind=CHOSEN),
    Alternative("Tiresias-L's first queue limit", "4 h", options={"threshold_s": 14400.0},
                source="the TITAN authors' Tiresias, four GPU-hours", kind=CHOSEN),
    Alternative("serverful cap (limited setup)", "8", {"capacity": 8},
                source="contention: about a quarter of the paper's 30 GPUs, so that jobs "
                       "queue for the serverful tier", kind=SETTING),
    Alternative("serverful cap (limited setup)", "4", {"capacity": 4},
                source="contention: more queueing still", kind=SETTING),
    Alternative("the jobs a seed draws", "one fixed trace (seed 1's)", {"trace_seed": 1},
                source="the paper ran one sample of 200 jobs once: every seed runs the "
                       "same jobs, and varies only the marketplace's offers and the "
                       "providers' start-ups", kind=READING),
)


#: what a seed draws of the headline workload's jobs, by source
_DRAWN = {"helios": "which jobs of the Helios window", "mixture": "the mixture's draws"}


def choices() -> dict:
    """lorasched's (and sec. 5.1's) value of each number the alternatives change."""
    return {"DBF window T": f"{minutes(WINDOW_S / 60)} (sec. 5.1), every tick up to it",
            "Tiresias-L's first queue limit": f"{minutes(TIRESIAS_THRESHOLD_S / 60)} "
                                              "(lorasched's; the paper names none)",
            "serverful cap (limited setup)": f"{SETUPS['limited']} (sec. 5.1)",
            "the jobs a seed draws": "a fresh trace per seed: "
                                     + _DRAWN[HEADLINE_SOURCE] + ", their arrivals, "
                                     "lengths and deadlines, with the offers and the "
                                     "start-ups"}


#: each alternative's name in reports (``allpass [sensitivity window 10 min]``), by label
SHORT = {"DBF window T = 10 min": "window 10 min", "DBF window T = 60 min": "window 60 min",
         "Tiresias-L's first queue limit = 10 min": "TL limit 10 min",
         "Tiresias-L's first queue limit = 4 h": "TL limit 4 h",
         "serverful cap (limited setup) = 8": "cap 8", "serverful cap (limited setup) = 4": "cap 4",
         "the jobs a seed draws = one fixed trace (seed 1's)": "one trace"}


def alternative_sweep(size: str, alt: Alternative, seeds, label: str | None = None) -> Part:
    """The runs ``alt`` changes on ``seeds`` as a sweep (:func:`.declared.alternative_part`),
    named in reports ``sensitivity <its short name>`` (:data:`SHORT`) unless ``label``."""
    return alternative_part(size, alt, seeds, label or
                            f"sensitivity {SHORT.get(alt.label, alt.slug)}")


def alternative_runs(size: str, alt: Alternative, seeds: list[int], store=None,
                     label: str | None = None) -> dict:
    """The runs ``alt`` changes, ``(setup, algorithm, seed) -> result``: the kept results
    of :func:`alternative_sweep` in ``store`` (default the size's; ``False``: a temporary
    folder), computed first by the experiment engine where it lacks them."""
    return kept_runs([alternative_sweep(size, alt, seeds, label)], size, store)


def sweeps(size: str = "small", seeds: int | None = None) -> list:
    """The sweeps of every alternative's runs on the page's seeds at ``size``."""
    n = SENSITIVITY.seeds(size, seeds)
    return [alternative_sweep(size, alt, range(1, n + 1)).sweep for alt in ALTERNATIVES]


class Sensitivity(SensitivityPage, Figure):
    """Allpass's headline claims (Figs. 6-12) under each of :data:`ALTERNATIVES`, beside
    lorasched's choice, on :data:`SEEDS` seeds paired."""

    system = "allpass"
    page = "sensitivity_allpass"
    alternatives = ALTERNATIVES
    seed_counts = SEEDS

    def choices(self) -> dict:
        """lorasched's value of each number the alternatives change (:func:`choices`)."""
        return choices()

    def data(self, size: str = "small", *, store=None, seeds: int | None = None, **_):
        """Label -> :class:`~.common.AllpassData` of that column: lorasched's choice is the
        pages' runs on the first seeds; an alternative replaces the runs it changes."""
        n = self.seeds(size, seeds)
        changes = [alternative_sweep(size, alt, range(1, n + 1)) for alt in self.alternatives]
        complete([*parts(size), *changes], size, store)  # one batch of what the store lacks
        every = runs(size, store=store)
        base = every.moved({k: k for k in every if k[2] <= n})
        out = {CHOICE: AllpassData(size, base, store)}
        for alt in self.alternatives:
            changed = alternative_runs(size, alt, list(range(1, n + 1)), store)
            out[alt.label] = AllpassData(size, base | changed, store)
        return out

    def columns(self, data) -> dict:
        return {label: rows(d) for label, d in data.items()}


def rows(data: AllpassData) -> list[dict]:
    """The paper's own claims of Figs. 6-12 (scope :data:`~.verdicts.PAPER`), each page's
    claims rows on ``data``."""
    out = []
    for fig in PAGES:
        claims = fig.claims(data)
        for r in claims[claims["scope"] == PAPER].to_dict("records"):
            out.append({"figure": r["figure"], "claim": r["claim"],
                        "setting": r.get(fig.variant_column, "") or "",
                        "verdict": r["verdict"], "ours": r["ours"]})
    return out


SENSITIVITY = Sensitivity()

__all__ = ["ALTERNATIVES", "PAGES", "SEEDS", "SENSITIVITY", "SHORT", "Sensitivity",
           "alternative_runs", "alternative_sweep", "choices", "rows", "sweeps"]
