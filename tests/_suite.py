"""The suite's tests' tiny definition: each system's ``small`` size replaced by one of a
few cells (two loads of a 2-node pdFTSP day, one TITAN and one Allpass scenario, two
seeds), and a policy selection of two policies per system, so that a whole suite run
takes seconds."""

from __future__ import annotations

from lorasched.suite import scenarios

TINY = {
    "pdftsp": {"base": {"nodes": 2, "slots": 12, "vendors": 1},
               "axes": {"load": {"low": {"load": 1.0}, "more": {"load": 2.0}}},
               "seeds": [1, 2]},
    "titan": {"base": {"nodes": 2, "gpus_per_node": 4, "jobs": 6},
              "axes": {"workload": ["authors"]}, "seeds": [1, 2]},
    "allpass": {"base": {"jobs": 6}, "axes": {"capacity": {"capped (2)": {"capacity": 2}}},
                "seeds": [1, 2]},
}
#: two cheap policies per system
POLICIES = ["pdftsp:pdftsp,eft", "titan:srtf,titan", "allpass:allpass,sjf_np"]


def use_tiny(monkeypatch) -> None:
    """Make the suite's ``small`` size :data:`TINY` until ``monkeypatch`` undoes it."""
    for system, setting in TINY.items():
        monkeypatch.setitem(scenarios.DEFINITION[system]["sizes"], "small", setting)
