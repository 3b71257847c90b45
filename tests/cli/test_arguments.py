"""The command line's argument types (:mod:`lorasched.cli.arguments`, the generic ones of
:mod:`lorasched.model.flags` and the systems' own in their ``flags`` modules): each turns a
flag's text into its value or refuses it with argparse's error, which the parser prints as
one line."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from lorasched.allpass.flags import capacity_arg
from lorasched.cli.arguments import load_arg, positive_float, positive_int, seed_arg
from lorasched.model.flags import existing_file
from lorasched.pdftsp.flags import constants_arg, day_arg


def test_capacity_none_is_unlimited_and_a_number_a_cap():
    assert capacity_arg("none") == "none" and capacity_arg("unlimited") == "none"
    assert capacity_arg("7") == 7


@pytest.mark.parametrize("parse, text, value", [
    (load_arg, "high", "high"), (load_arg, "12.5", 12.5), (positive_float, "0.25", 0.25),
    (positive_int, "3", 3), (seed_arg, "0", 0), (constants_arg, "vmax", "vmax"),
    (day_arg, "12", 12), (day_arg, "median", "median"),
])
def test_a_flag_s_text_becomes_its_value(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize("parse, text, rule", [
    (capacity_arg, "-1", "positive whole number or none"),
    (capacity_arg, "-5", "positive whole number or none"),
    (capacity_arg, "two", "positive whole number or none"),
    (load_arg, "heavy", "must be one of"), (load_arg, "-3", ">= 0"), (load_arg, "inf", ">= 0"),
    (positive_float, "0", "> 0"), (positive_float, "nan", "> 0"),
    (positive_int, "1.5", "whole number"), (positive_int, "0", ">= 1"),
    (seed_arg, "-1", ">= 0"), (constants_arg, "lemma3", "constants file"),
    (existing_file, "/no/such/file.csv", "no such file"),
])
def test_a_flag_s_bad_text_is_refused_with_the_rule(parse, text, rule):
    with pytest.raises(argparse.ArgumentTypeError, match=rule):
        parse(text)


def test_a_constants_file_is_a_path_a_rule_its_name(tmp_path):
    """A path, not text: the command reads it as a file written by `lorasched calibrate`."""
    path = tmp_path / "c.toml"
    path.write_text("")
    assert constants_arg(str(path)) == Path(path) and isinstance(constants_arg(str(path)), Path)
    assert existing_file(str(path)) == str(path)
    assert isinstance(constants_arg("lemma2"), str)
