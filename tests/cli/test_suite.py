"""``lorasched suite``: the report and its tables printed, a rerun that computes nothing,
--compare, --dry-run, and bad input as one line with exit status 2."""

from __future__ import annotations

import json

import pytest
from _suite import use_tiny

from lorasched.cli import main


@pytest.mark.parametrize("argv, message", [
    (["suite", "--policies", "titan:magic"], "unknown policy 'magic' for system 'titan'"),
    (["suite", "--policies", "nope"], "system 'nope' is not in the suite"),
    (["suite", "--size", "huge"], "--size"),
    (["suite", "--compare", "/no/such/report"], "no suite report header"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_suite_reports_resumes_and_compares(tmp_path, monkeypatch, capsys):
    use_tiny(monkeypatch)
    out = tmp_path / "report"
    argv = ["suite", "--policies", "titan:srtf,titan", "allpass:sjf_np", "--out", str(out),
            "--serial", "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "## titan" in text and "| srtf | " in text and "| sjf_np | " in text
    assert "## pdftsp" not in text  # only the systems named run
    assert "6 cells computed, 0 already done, 0 failed" in text
    assert main([*argv, "--compare", str(out)]) == 0
    text = capsys.readouterr().out
    assert "0 cells computed, 6 already done" in text
    assert f"against {out}: comparable" in text
    head = json.loads((out / "report.json").read_text())
    head["size"] = "full"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(head))
    assert main([*argv, "--compare", str(other)]) == 0
    assert "NOT comparable:\n  - size differs: 'small' vs 'full'" in capsys.readouterr().out
    assert main(["suite", "--policies", "titan:srtf", "--out", str(out), "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "titan: workload=1, algorithm=1, seed=2; 2 cells, 2 done" in text
