"""Learned policies on the three environments: train MaskablePPO (sb3-contrib) on a seeded
family of each system's default scenarios (:func:`train`), evaluate it beside uniform
random masked play and the paper's own policy on the same held-out scenarios, paired
(:func:`evaluate`), and keep such runs as data (:func:`keep_runs`, :data:`RUNS_PATH`) that
the book renders without torch (:func:`load_runs`; its tables and figure:
:mod:`lorasched.gym.learned`). What each environment's reward
optimises, beside the paper's objective: :data:`OBJECTIVES`. Training needs the optional
extra ``rl`` (torch, stable-baselines3, sb3-contrib), imported only inside :func:`train`.
"""

from __future__ import annotations

import json
import numbers
import platform
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium
import numpy as np

from ..model.errors import InputError
from . import IDS, held_out_seeds

#: the environments, by the system's name (:data:`lorasched.gym.IDS`)
ENV_IDS: tuple[str, ...] = tuple(IDS.values())
#: the policies :func:`evaluate` runs: a trained model, uniform random play among the
#: actions the mask allows, and the paper's own policy (each problem's ``expert_action``)
POLICIES = ("learned", "random", "paper")
#: the learning algorithms :func:`train` offers
ALGORITHMS = ("maskable_ppo",)
#: the scenario seeds an agent trains on (a reset draws one of them); the held-out seeds
#: (:data:`~lorasched.gym.HELD_OUT_SEEDS`) lie apart
TRAINING_SEEDS: tuple[int, ...] = tuple(range(64))
#: MaskablePPO's settings in :func:`train` (stable-baselines3's names); a run may change
#: any of them
HYPERPARAMETERS: dict[str, Any] = dict(
    n_steps=256, batch_size=64, n_epochs=10, learning_rate=3e-4, gamma=0.99,
    gae_lambda=0.95, clip_range=0.2, ent_coef=0.0,
    policy_kwargs=dict(net_arch=[64, 64]))
#: each system's own metrics, read from ``info["result"]`` at an episode's end (name:
#: meaning; the higher the better for the first of pdFTSP, the lower for the others)
METRICS: dict[str, dict[str, str]] = {
    IDS["pdftsp"]: {"provider_utility": "provider's utility, eq. (2), USD",
                    "welfare": "social welfare, eq. (3), USD"},
    IDS["titan"]: {"mean_jct_h": "mean job completion time, h"},
    IDS["allpass"]: {"cost_usd": "total cost, USD",
                     "mean_jct_min": "mean job completion time, min"},
}
#: whether more is better, per metric of :data:`METRICS`
HIGHER_IS_BETTER: dict[str, bool] = {"provider_utility": True, "welfare": True,
                                     "mean_jct_h": False, "cost_usd": False,
                                     "mean_jct_min": False}
#: the reward each environment optimises beside the paper's objective, one row per
#: environment (``pandas.DataFrame.from_dict(OBJECTIVES, orient="index")``)
OBJECTIVES: dict[str, dict[str, str]] = {
    IDS["pdftsp"]: {
        "system": "pdFTSP",
        "paper's objective": "maximise the social welfare, eq. (3): the users' utility "
                             "plus the provider's (the online auction, Algorithm 1, "
                             "approximates it with a competitive ratio)",
        "reward": "the increment of the provider's utility, eq. (2), per decided task "
                  "(default); with reward='welfare', of the social welfare, eq. (3)",
        "the comparison": "under the default reward the agent is paid for what the "
                          "provider keeps, which the auction does not maximise: it may "
                          "charge the posted price (action 2) and turn away tasks whose "
                          "payment is low, so it can beat the paper on provider utility "
                          "while losing welfare; only reward='welfare' asks the agent what "
                          "the paper's policy is built for",
    },
    IDS["titan"]: {
        "system": "TITAN",
        "paper's objective": "minimise the average job completion time (JCT); at each "
                             "event the MILP maximises the cluster's progress per unit "
                             "time, eqs. (1)-(11)",
        "reward": "minus the job-hours accrued until the next event: an episode's rewards "
                  "add up to minus the jobs' total JCT",
        "the comparison": "the same objective: the scenario's jobs are fixed, so total "
                          "and mean JCT order policies alike; the MILP optimises one event "
                          "greedily, the agent the whole episode",
    },
    IDS["allpass"]: {
        "system": "Allpass",
        "paper's objective": "a low average JCT at the lowest total dollar cost, with "
                             "jobs meeting their deadlines (Algorithm 2 provisions for the "
                             "demand bound of eq. 1)",
        "reward": "minus the dollars accrued since the last tick (default); jct_weight "
                  "adds USD per minute of JCT",
        "the comparison": "under the default reward the agent is paid for cost alone: it "
                          "may keep fewer serverful workers than Algorithm 2 and let jobs "
                          "wait (the liveness rule keeps one worker while jobs queue), "
                          "beating the paper on cost while losing on JCT; read both "
                          "metrics, or train with a jct_weight",
    },
}
#: where :func:`keep_runs` writes the kept runs by default (beside this module)
RUNS_PATH = Path(__file__).with_name("learned_runs.json")
#: the settings of the kept runs, by key (the training seeds; the configurations, by name,
#: each an environment, its options and its budget in environment steps; how many held-out
#: scenarios are evaluated, the first of :func:`~lorasched.gym.held_out_seeds`; the
#: evaluation's seed; MaskablePPO's settings; and one tiny configuration that a test trains
#: again and compares bit for bit). TITAN's slots are cut from 47 to 16, since an event of
#: the default family offered at most 10 candidates (random and paper play, 40 seeds) and
#: the masked policy's cost grows with the slots (one categorical distribution each).
RUNS: dict[str, Any] = {
    "training_seeds": [0, 1, 2],
    "configs": {
        "admission": {"env_id": IDS["pdftsp"], "env_options": {}, "steps": 16384},
        "admission_welfare": {"env_id": IDS["pdftsp"], "env_options": {"reward": "welfare"},
                              "steps": 16384},
        "allocation": {"env_id": IDS["titan"], "env_options": {"max_units": 16},
                       "steps": 8192},
        "provisioning": {"env_id": IDS["allpass"], "env_options": {}, "steps": 16384},
    },
    "held_out": 10,
    "evaluation_seed": 0,
    "hyperparameters": HYPERPARAMETERS,
    "tiny": {"config": "provisioning", "steps": 512, "seed": 0, "held_out": 2},
}


class Trained(NamedTuple):
    """What :func:`train` returns: the model and its learning curve."""

    #: the trained ``sb3_contrib.MaskablePPO``
    model: Any
    #: int64 (episodes,): the environment steps done when each training episode ended
    steps: np.ndarray
    #: float64 (episodes,): each training episode's return (Monitor's, to 6 decimals)
    returns: np.ndarray
    #: CPU seconds of the training (this process)
    cpu_seconds: float


def _check_id(env_id) -> str:
    if env_id not in ENV_IDS:
        raise InputError(f"env_id must be one of {list(ENV_IDS)}, got {env_id!r}")
    return env_id


def _count(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _seeds(name: str, seeds) -> list[int]:
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence | range):
        raise InputError(f"{name} must be a sequence of non-negative integers, got "
                         f"{seeds!r}")
    out = [_count(f"each of {name}", k, 0) for k in seeds]
    if not out:
        raise InputError(f"{name} must hold at least one seed")
    return out


def _options(env_options) -> dict:
    if env_options is None:
        return {}
    if not isinstance(env_options, dict):
        raise InputError(f"env_options must be a dict of the environment's options, got "
                         f"{type(env_options).__name__}")
    taken = sorted({"scenario", "scenario_seed", "scenario_seeds", "scale"} & set(env_options))
    if taken:
        raise InputError(f"env_options may not set {taken}: the scenarios and the scaling "
                         f"are the training's (scenario_seeds, scale=True)")
    return dict(env_options)


def _make(env_id: str, options: dict, family) -> gymnasium.Env:
    """The environment of ``env_id`` drawing its scenario from ``family`` at each reset,
    its observation scaled."""
    return gymnasium.make(env_id, scenario_seeds=family, scale=True, **options)


def _problem(env: gymnasium.Env):
    """The decision problem under the environment's wrappers."""
    u = env.unwrapped
    return u._problem if hasattr(u, "_problem") else u.problem


def _masks(env: gymnasium.Env) -> np.ndarray:
    return np.asarray(env.get_wrapper_attr("action_masks")(), dtype=bool)


def _paper_action(env_id: str, env: gymnasium.Env):
    """The paper's policy's action at this step, in the environment's action space."""
    action = _problem(env).expert_action()
    if env_id == IDS["allpass"]:
        return int(action) + (env.action_space.n - 1) // 2      # index i = change i - K
    return action


def _random_action(env: gymnasium.Env, rng: np.random.Generator):
    """Uniform among the actions the mask allows (per slot for a MultiDiscrete space)."""
    mask = _masks(env)
    space = env.action_space
    if isinstance(space, gymnasium.spaces.Discrete):
        return int(rng.choice(np.flatnonzero(mask)))
    out = np.zeros(space.nvec.size, dtype=np.int64)
    for s, row in enumerate(np.split(mask, np.cumsum(space.nvec)[:-1])):
        allowed = np.flatnonzero(row)
        out[s] = rng.choice(allowed) if allowed.size else 0
    return out


def _learned_action(model, obs, env: gymnasium.Env):
    action, _ = model.predict(obs, action_masks=_masks(env), deterministic=True)
    return int(action) if np.ndim(action) == 0 else np.asarray(action, dtype=np.int64)


def metrics(env_id: str, result) -> dict[str, float]:
    """The system's own metrics (:data:`METRICS`) of an episode's result.

    Parameters
    ----------
    env_id : str
        One of :data:`ENV_IDS`.
    result : xarray.Dataset
        ``info["result"]`` at an episode's end, or the system's ``simulate`` result.

    Returns
    -------
    dict of str to float
        :data:`METRICS`'s names for ``env_id``.
    """
    _check_id(env_id)
    a = result.attrs
    if env_id == IDS["pdftsp"]:
        return {"provider_utility": float(a["provider_utility"]),
                "welfare": float(a["welfare"])}
    if env_id == IDS["titan"]:
        return {"mean_jct_h": float(a["avg_jct_h"])}
    return {"cost_usd": float(a["cost_usd"]),
            "mean_jct_min": float(result["jct_s"].values.mean() / 60)}


def evaluate(env_id: str, policy: str, scenario_seeds, *, seed: int,
             env_options: dict | None = None, model=None) -> dict[str, list]:
    """One policy's episodes on given scenarios, one per scenario seed.

    Every policy meets the same scenarios with the same reset seed (the environment's
    Generator, which draws Allpass's start-up delays), so the results of two policies are
    paired scenario by scenario. The environment is made as :func:`train` makes it (the
    same options, the observation scaled), so a trained model sees what it trained on.

    Parameters
    ----------
    env_id : str
        One of :data:`ENV_IDS`.
    policy : {"learned", "random", "paper"}
        ``"learned"``: ``model``'s deterministic action under the action mask;
        ``"random"``: uniform among the actions the mask allows (per slot on TITAN, whose
        joint rest the environment clips), drawn from a Generator seeded by ``(seed,
        scenario seed)``; ``"paper"``: the system's own policy
        (``expert_action``: pdFTSP's auction, TITAN's MILP, Allpass's Algorithm 2).
    scenario_seeds : sequence of int
        The scenarios, as seeds of the environment's default scenario (for a held-out
        evaluation, :func:`~lorasched.gym.held_out_seeds`).
    seed : int
        The reset seed of every episode.
    env_options : dict, optional
        The environment's options (as given to :func:`train`).
    model : object, optional
        The trained sb3-contrib ``MaskablePPO`` (``"learned"`` only; the ``model`` of
        :class:`Trained`).

    Returns
    -------
    dict of str to list
        Per scenario, in order: ``scenario_seed``, ``return`` (the episode's summed
        reward), ``decisions`` (its steps), each of :data:`METRICS`'s for ``env_id``, and
        ``seconds_per_decision`` (the policy's wall seconds per decision, the
        environment's step excluded; it varies from run to run). What the environment
        computes for every policy is not counted: pdFTSP's schedule and prices at this
        task are part of its observation, so the auction's own choice costs a look-up.

    Raises
    ------
    InputError
        For an unknown id or policy, a model missing or given where it does not belong,
        bad seeds or options.
    """
    _check_id(env_id)
    if policy not in POLICIES:
        raise InputError(f"policy must be one of {POLICIES}, got {policy!r}")
    if (model is None) == (policy == "learned"):
        raise InputError("model is needed with policy='learned' and only with it")
    seeds = _seeds("scenario_seeds", scenario_seeds)
    seed = _count("seed", seed, 0)
    env = _make(env_id, _options(env_options), TRAINING_SEEDS)
    out: dict[str, list] = {"scenario_seed": [], "return": [], "decisions": [],
                            **{name: [] for name in METRICS[env_id]},
                            "seconds_per_decision": []}
    for k in seeds:
        obs, _ = env.reset(seed=seed, options={"scenario_seed": k})
        rng = np.random.default_rng([seed, k])
        total, n, spent, done, info = 0.0, 0, 0.0, False, {}
        while not done:
            start = time.perf_counter()
            if policy == "paper":
                action = _paper_action(env_id, env)
            elif policy == "random":
                action = _random_action(env, rng)
            else:
                action = _learned_action(model, obs, env)
            spent += time.perf_counter() - start
            obs, reward, terminated, truncated, info = env.step(action)
            total, n, done = total + float(reward), n + 1, terminated or truncated
        out["scenario_seed"].append(k)
        out["return"].append(total)
        out["decisions"].append(n)
        for name, value in metrics(env_id, info["result"]).items():
            out[name].append(value)
        out["seconds_per_decision"].append(spent / n)
    env.close()
    return out


def train(env_id: str, *, steps: int, seed: int, env_options: dict | None = None,
          algorithm: str = "maskable_ppo", hyperparameters: dict | None = None) -> Trained:
    """Train MaskablePPO on a family of scenarios of one environment.

    The environment is ``gymnasium.make(env_id, scenario_seeds=TRAINING_SEEDS,
    scale=True, **env_options)``, with no wrapper of one's own: each reset draws one of
    :data:`TRAINING_SEEDS`' default scenarios, and the agent acts under the environment's
    ``action_masks``. The run is seeded (stable-baselines3's ``seed``, which seeds Python,
    numpy, torch and the environment, and ``torch.manual_seed``) and runs torch on one
    thread, so the same arguments give the same model on one machine.

    Parameters
    ----------
    env_id : str
        One of :data:`ENV_IDS`.
    steps : int
        The budget in environment steps (rounded up to whole rollouts of ``n_steps``).
    seed : int
        The training seed.
    env_options : dict, optional
        The environment's options (e.g. ``{"reward": "welfare"}`` for Admission); not
        ``scenario``, ``scenario_seed``, ``scenario_seeds`` or ``scale``.
    algorithm : {"maskable_ppo"}, optional
        The learning algorithm (:data:`ALGORITHMS`).
    hyperparameters : dict, optional
        MaskablePPO's settings in place of :data:`HYPERPARAMETERS`' (same names).

    Returns
    -------
    Trained
        The model, its learning curve (each training episode's end step and return, from
        stable-baselines3's Monitor) and the CPU seconds spent.

    Raises
    ------
    InputError
        For an unknown id, algorithm or hyperparameter, a budget or seed out of range, bad
        options, or when torch, stable-baselines3 or sb3-contrib is missing (install
        ``pip install "lorasched[rl]"``).
    """
    _check_id(env_id)
    steps = _count("steps", steps, 1)
    seed = _count("seed", seed, 0)
    if algorithm not in ALGORITHMS:
        raise InputError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    settings = dict(HYPERPARAMETERS)
    if hyperparameters is not None:
        if not isinstance(hyperparameters, dict):
            raise InputError(f"hyperparameters must be a dict, got "
                             f"{type(hyperparameters).__name__}")
        unknown = sorted(set(hyperparameters) - set(HYPERPARAMETERS))
        if unknown:
            raise InputError(f"unknown hyperparameter(s) {unknown}; the settable ones are "
                             f"{sorted(HYPERPARAMETERS)}")
        settings.update(hyperparameters)
    options = _options(env_options)
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as error:
        raise InputError(f"train needs torch, stable-baselines3 and sb3-contrib: "
                         f"pip install \"lorasched[rl]\" ({error})") from None
    start = time.process_time()
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    env = _make(env_id, options, TRAINING_SEEDS)
    model = MaskablePPO("MultiInputPolicy", env, seed=seed, device="cpu", verbose=0,
                        **settings)
    ends: list[int] = []
    returns: list[float] = []

    def record(local, _globals) -> bool:
        for info in local["infos"]:
            if "episode" in info:
                ends.append(int(local["self"].num_timesteps))
                returns.append(float(info["episode"]["r"]))
        return True

    model.learn(total_timesteps=steps, callback=record)
    env.close()
    return Trained(model, np.array(ends, dtype=np.int64), np.array(returns, dtype=float),
                   time.process_time() - start)


# -- runs kept as data -------------------------------------------------------------------

def _versions() -> dict[str, str]:
    import sb3_contrib
    import stable_baselines3
    import torch
    return {"python": platform.python_version(), "numpy": np.__version__,
            "gymnasium": gymnasium.__version__, "torch": torch.__version__,
            "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__}


def _commit() -> str:
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=40"],
                             cwd=Path(__file__).parent, capture_output=True, text=True,
                             timeout=10, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def run_one(env_id: str, *, steps: int, seed: int, held_out: int, evaluation_seed: int,
            env_options: dict | None = None, hyperparameters: dict | None = None) -> dict:
    """Train one seed and evaluate it on the held-out scenarios, as kept data.

    Parameters
    ----------
    env_id : str
        One of :data:`ENV_IDS`.
    steps, seed : int
        :func:`train`'s budget and seed.
    held_out : int
        How many held-out scenarios are evaluated (:func:`~lorasched.gym.held_out_seeds`).
    evaluation_seed : int
        :func:`evaluate`'s seed.
    env_options, hyperparameters : dict, optional
        As for :func:`train`.

    Returns
    -------
    dict
        ``seed``, ``steps`` (done), ``curve`` (``steps`` and ``returns`` lists),
        ``learned`` (:func:`evaluate`'s dict) and ``cpu_seconds`` (``train`` and
        ``evaluate``).
    """
    trained = train(env_id, steps=steps, seed=seed, env_options=env_options,
                    hyperparameters=hyperparameters)
    start = time.process_time()
    learned = evaluate(env_id, "learned", held_out_seeds(held_out), seed=evaluation_seed,
                       env_options=env_options, model=trained.model)
    return {"seed": seed, "steps": int(trained.model.num_timesteps),
            "curve": {"steps": trained.steps.tolist(), "returns": trained.returns.tolist()},
            "learned": learned,
            "cpu_seconds": {"train": trained.cpu_seconds,
                            "evaluate": time.process_time() - start}}


def keep_runs(path: str | Path = RUNS_PATH, settings: dict | None = None) -> dict:
    """Train, evaluate and write the kept runs (:data:`RUNS`) as one JSON file.

    For each configuration: every training seed at its budget, each model evaluated on
    the held-out scenarios, and the random and paper policies on the same scenarios once
    (they do not depend on the training seed); then the tiny configuration. About 10
    CPU-minutes with :data:`RUNS` (``cpu_seconds`` records it).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Where to write (default :data:`RUNS_PATH`).
    settings : dict, optional
        In place of :data:`RUNS` (same keys).

    Returns
    -------
    dict
        What was written: ``settings``, ``versions`` (python, numpy, gymnasium, torch,
        stable-baselines3, sb3-contrib), ``commit`` (``git describe --dirty`` of the
        code that ran), ``machine``, ``objectives`` (:data:`OBJECTIVES`), ``metrics``
        (:data:`METRICS`), ``runs`` (per configuration: ``learned``, a :func:`run_one` per
        training seed; ``random`` and ``paper``, :func:`evaluate`'s), ``tiny``
        (:func:`run_one`'s) and ``cpu_seconds`` (in all, this process).
    """
    s = RUNS if settings is None else settings
    start = time.process_time()
    data: dict[str, Any] = {"settings": s, "versions": _versions(), "commit": _commit(),
                            "machine": platform.machine(), "objectives": OBJECTIVES,
                            "metrics": METRICS, "runs": {}}
    seeds = held_out_seeds(s["held_out"])
    for name, config in s["configs"].items():
        env_id, options = config["env_id"], config["env_options"]
        runs = {"learned": [run_one(env_id, steps=config["steps"], seed=seed,
                                    held_out=s["held_out"],
                                    evaluation_seed=s["evaluation_seed"],
                                    env_options=options,
                                    hyperparameters=s["hyperparameters"])
                            for seed in s["training_seeds"]]}
        for policy in ("random", "paper"):
            runs[policy] = evaluate(env_id, policy, seeds, seed=s["evaluation_seed"],
                                    env_options=options)
        data["runs"][name] = runs
    t = s["tiny"]
    config = s["configs"][t["config"]]
    data["tiny"] = run_one(config["env_id"], steps=t["steps"], seed=t["seed"],
                           held_out=t["held_out"], evaluation_seed=s["evaluation_seed"],
                           env_options=config["env_options"],
                           hyperparameters=s["hyperparameters"])
    data["cpu_seconds"] = time.process_time() - start
    Path(path).write_text(json.dumps(data, indent=1) + "\n")
    return data


def load_runs(path: str | Path = RUNS_PATH) -> dict:
    """The kept runs (:func:`keep_runs`' JSON), with no torch needed.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Default :data:`RUNS_PATH`.

    Returns
    -------
    dict

    Raises
    ------
    InputError
        If the file is missing or not JSON.
    """
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise InputError(f"the kept runs {str(path)!r} cannot be read: {error}") from None


if __name__ == "__main__":                                   # python -m lorasched.gym.learn
    kept = keep_runs()
    print(f"wrote {RUNS_PATH} in {kept['cpu_seconds']:.0f} CPU-s")
