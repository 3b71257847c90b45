"""``lorasched simulate``: one run of one policy on one scenario, for each system (the
flags of another system are refused by name), checked, printed and optionally written as
netCDF. :mod:`lorasched.cli` parses the command line and calls :func:`simulate`."""

from __future__ import annotations

import os

from . import systems
from .allpass import policies as allpass_policies
from .allpass.scenario import PAPER_CAPACITY
from .allpass.workload import PAPER_JOBS as ALLPASS_JOBS
from .experiments import calibrate as calibration
from .model.errors import InputError
from .model.system import policy_options
from .pdftsp import policies as algorithms
from .pdftsp.auction import CONSTANTS
from .pdftsp.workload import synthetic_scenario
from .titan.scenario import titan_scenario


def _file_options(path) -> dict:
    """pdFTSP's options from a constants file, each checked: an option pdFTSP does not
    take, or an alpha/beta that is not a number, is a ``ValueError`` naming it."""
    found = calibration.options_from(path, "pdftsp", "pdftsp")
    accepted = policy_options(algorithms.get("pdftsp"))
    for name, value in found.items():
        if name not in accepted:
            raise InputError(f"constants file {path}: options.{name} is not an option of "
                             f"pdftsp; it accepts {sorted(accepted)}")
        if name in ("alpha", "beta") and (isinstance(value, bool)
                                          or not isinstance(value, int | float)):
            raise InputError(f"constants file {path}: options.{name} must be a number, got "
                             f"{value!r}")
    return found


def _reject_allpass_flags(args, system: str) -> None:
    """A ``ValueError`` naming the first of Allpass's flags given to another system."""
    for flag, value in (("--capacity", args.capacity), ("--sizing", args.sizing),
                        ("--offers", args.offers), ("--units", args.units)):
        if value is not None:
            raise InputError(f"{flag} is Allpass's (--system allpass); --system {system} "
                             f"has no such setting")


def _simulate_allpass(args) -> int:
    for flag, value in (("--load", args.load != "high"), ("--vendors", args.vendors != 5),
                        ("--slots", args.slots != 144),
                        ("--deadline-policy", args.deadline_policy != "slack"),
                        ("--payment", args.payment != "critical"),
                        ("--solver", args.solver != "paper"),
                        ("--constants", args.constants != "lemma2"),
                        ("--alpha", args.alpha is not None), ("--beta", args.beta is not None),
                        ("--work-resolution", args.work_resolution != 8),
                        ("--candidate-cells", args.candidate_cells != "auto"),
                        ("--task-sizes", args.task_sizes != "paper"),
                        ("--trace-day", args.trace_day is not None),
                        ("--progress", args.progress)):
        if value:
            raise InputError(f"{flag} is pdFTSP's; --system allpass has no such setting")
    for flag, value in (("--density", args.density != 1.0), ("--model", args.model != "vit-large"),
                        ("--gpus-per-node", args.gpus_per_node != 4),
                        ("--preemptive", args.preemptive),
                        ("--candidates", args.candidates is not None),
                        ("--constraints", args.constraints is not None),
                        ("--setup", args.setup is not None),
                        ("--ckpt-s", args.ckpt_s is not None),
                        ("--oversize", args.oversize is not None),
                        ("--objective", args.objective is not None)):
        if value:
            raise InputError(f"{flag} is TITAN's (--system titan); --system allpass has no "
                             f"such setting")
    for flag, value in (("--nodes", args.nodes), ("--gpu", args.gpu)):
        if value is not None:
            raise InputError(f"{flag}: --system allpass rents A100 workers from its clouds; "
                             f"cap the serverful ones with --capacity")
    name = (args.algorithm or "allpass").replace("-", "_")
    if name not in allpass_policies.REGISTRY:
        raise InputError(f"--algorithm {args.algorithm!r}: allpass's are "
                         + ", ".join(n.replace("_", "-") for n in allpass_policies.REGISTRY))
    source = args.trace or "helios"
    if source not in ("helios", "mixture"):
        raise InputError(f"--trace: --system allpass draws its jobs from helios (default) or "
                         f"mixture, got {args.trace!r}")
    if args.offers is not None and not os.path.isfile(args.offers):
        raise FileNotFoundError(f"--offers: no such file {args.offers}")
    capacity = PAPER_CAPACITY if args.capacity is None else args.capacity
    scenario = systems.get("allpass").build_scenario(
        jobs=args.jobs or ALLPASS_JOBS, source=source, capacity=capacity,
        sizing=args.sizing or "cost", offer_file=args.offers, seed=args.seed)
    options = {}
    if args.units is not None:
        if "units" not in policy_options(allpass_policies.REGISTRY[name]):
            raise InputError(f"--units is a reading of Allpass's pressure; --algorithm "
                             f"{name.replace('_', '-')} computes none")
        options["units"] = args.units
    result = systems.simulate(scenario, algorithm=name, seed=args.seed, **options)
    systems.check_result(result)
    if args.out:
        result.to_netcdf(args.out)
    m = systems.get("allpass").measure(scenario, result)
    print(f"{name.replace('_', '-')}"
          + (f" (units {args.units})" if args.units else "")
          + f": {result.sizes['job']} jobs ({source}, "
          f"{args.sizing or 'cost'} sizing, "
          + ("unlimited capacity" if capacity == "none" else f"capacity {capacity}")
          + f"), seed {args.seed}: average JCT "
          f"{m['avg_jct_min']:.1f} min, median {m['median_jct_min']:.1f} min, "
          f"{m['share_10min']:.0%} <= 10 min, cost ${m['cost_usd']:.2f} (Modal "
          f"${m['cost_modal_usd']:.2f}, Vast.ai ${m['cost_vast_usd']:.2f}, Lambda "
          f"${m['cost_lambda_usd']:.2f}), at most {m['max_workers']:.0f} serverful workers"
          + (f" -> {args.out}" if args.out else ""))
    return 0


def _simulate_titan(args) -> int:
    for flag, value in (("--load", args.load != "high"), ("--vendors", args.vendors != 5),
                        ("--slots", args.slots != 144), ("--payment", args.payment != "critical"),
                        ("--solver", args.solver != "paper"),
                        ("--deadline-policy", args.deadline_policy != "slack"),
                        ("--constants", args.constants != "lemma2"),
                        ("--alpha", args.alpha is not None), ("--beta", args.beta is not None),
                        ("--work-resolution", args.work_resolution != 8),
                        ("--candidate-cells", args.candidate_cells != "auto"),
                        ("--trace-day", args.trace_day is not None),
                        ("--task-sizes", args.task_sizes != "paper")):
        if value:
            raise InputError(f"{flag} is pdFTSP's; --system titan has no such setting")
    _reject_allpass_flags(args, "titan")
    if args.trace not in (None, "helios"):
        raise InputError(f"--trace: --system titan has the authors' workload (no --trace) "
                         f"or helios, got {args.trace!r}")
    workload = "helios" if args.trace == "helios" else "authors"
    scenario = titan_scenario(workload=workload, density=args.density, jobs=args.jobs,
                              model=args.model, gpu=args.gpu or "V100",
                              nodes=args.nodes, gpus_per_node=args.gpus_per_node,
                              seed=args.seed, setup=args.setup or "paper",
                              ckpt_s=args.ckpt_s, oversize=args.oversize or "error")
    algorithm = args.algorithm or "titan"
    options = {}
    for name in ("preemptive", "candidates", "constraints", "objective"):
        value = getattr(args, name)
        if value not in (None, False):
            options[name] = value
    result = systems.simulate(scenario, algorithm=algorithm, seed=args.seed,
                              progress=args.progress, **options)
    systems.check_result(result)
    a = result.attrs
    print(f"{algorithm}: {a['n_jobs']} jobs ({workload} workload, density {args.density:g}, "
          f"{a['model']} on {a['gpus']} {a['gpu']} GPUs), seed {args.seed}: average JCT "
          f"{a['avg_jct_h']:.3f} h, makespan {a['makespan_h']:.2f} h, "
          f"setup {a.get('setup', 'paper')}, "
          f"{a['n_merged_jobs']} jobs merged, {a['switch_h']:.2f} GPU-h switching, "
          f"{result.sizes['decision']} MILP solves"
          + (f" (mean {result['solve_s'].values.mean() * 1e3:.1f} ms, max "
             f"{result['solve_s'].values.max() * 1e3:.1f} ms)"
             if result.sizes["decision"] else "")
          + (f" -> {args.out}" if args.out else ""))
    if args.out:
        result.to_netcdf(args.out)
    return 0


def simulate(args, parser) -> int:
    """Run ``lorasched simulate`` for the system ``args.system`` names; 0 on success."""
    if args.out:
        folder = os.path.dirname(os.path.abspath(args.out))
        if os.path.isdir(args.out):
            raise InputError(f"--out: {args.out} is a folder; name the file to write "
                             "(e.g. run.nc)")
        if not os.path.isdir(folder):
            parser.exit(2, f"lorasched: error: --out: folder {folder} does not exist\n")
    if args.system == "titan":
        return _simulate_titan(args)
    if args.system == "allpass":
        return _simulate_allpass(args)
    if args.jobs is not None:
        raise InputError("--jobs is TITAN's and Allpass's (--system titan or allpass); pdftsp "
                         "has no such setting")
    for flag, value in (("--preemptive", args.preemptive or None),
                        ("--candidates", args.candidates), ("--constraints", args.constraints),
                        ("--setup", args.setup), ("--ckpt-s", args.ckpt_s),
                        ("--objective", args.objective), ("--oversize", args.oversize),
                        ("--density", None if args.density == 1.0 else args.density)):
        if value is not None:
            raise InputError(f"{flag} is TITAN's (--system titan); pdftsp has no such setting")
    _reject_allpass_flags(args, "pdftsp")
    args.nodes = args.nodes or 100
    args.gpu = args.gpu or "mix"
    if args.gpu == "V100":
        raise InputError("--gpu V100: pdftsp's nodes are A100, A40 or mix")
    args.algorithm = args.algorithm or "pdftsp"
    if args.algorithm not in algorithms.REGISTRY:
        raise InputError(f"--algorithm {args.algorithm!r}: pdftsp's are "
                         f"{sorted(algorithms.REGISTRY)}")
    day = {}
    if args.trace_day is not None:
        if args.trace is None:
            raise InputError("--trace-day needs --trace (the day of which trace?)")
        day["trace_day"] = int(args.trace_day) if args.trace_day.isdigit() else args.trace_day
    scenario = synthetic_scenario(
        nodes=args.nodes, gpu=args.gpu, load=args.load, vendors=args.vendors,
        deadline_policy=args.deadline_policy, seed=args.seed, slots=args.slots,
        trace=args.trace, task_sizes=args.task_sizes, **day)
    options = {}
    if args.algorithm == "pdftsp":
        options = dict(payment=args.payment, solver=args.solver,
                       work_resolution=args.work_resolution, candidates=args.candidate_cells,
                       progress=args.progress)
        if args.constants in CONSTANTS:
            options["constants"] = args.constants
        else:
            options.update(_file_options(args.constants))
        for name in ("alpha", "beta"):
            if getattr(args, name) is not None:
                options[name] = getattr(args, name)
    elif args.constants != "lemma2" or args.alpha is not None or args.beta is not None:
        raise InputError(f"--constants, --alpha and --beta are pdFTSP's; algorithm "
                         f"{args.algorithm!r} has no such constants")
    result = systems.simulate(scenario, algorithm=args.algorithm, seed=args.seed, **options)
    systems.check_result(result)
    a = result.attrs
    source = f"trace {args.trace} day {scenario.attrs['trace_day']}, " if args.trace else ""
    print(f"{args.algorithm}: K={args.nodes} {args.gpu}, {source}load {args.load} "
          f"(load factor {scenario.attrs['load_factor']:.2f}), seed {args.seed}: admitted "
          f"{a['n_admitted']}/{a['n_tasks']}, welfare {a['welfare']:.2f}, user utility "
          f"{a['user_utility']:.2f}, provider utility {a['provider_utility']:.2f}, revenue "
          f"{a['revenue']:.2f}, median decision {a['median_decision_time'] * 1e6:.0f} us"
          + (f" -> {args.out}" if args.out else ""))
    if args.out:
        result.to_netcdf(args.out)
    return 0
