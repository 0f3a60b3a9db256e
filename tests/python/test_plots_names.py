"""plots.names.parse_name: the one benchmark-name parser."""

import pytest

from plots.names import parse_name

EXAMPLE = "idw/shepard/tiled/aoas/float/p:2/size:1048576/block:256"


def test_fields_and_numeric_params():
    parsed = parse_name(EXAMPLE + "/manual_time")
    assert (parsed["paper"], parsed["app"], parsed["version"], parsed["layout"],
            parsed["precision"]) == ("idw", "shepard", "tiled", "aoas", "float")
    assert parsed["params"] == {"p": 2, "size": 1048576, "block": 256}
    assert isinstance(parsed["params"]["size"], int)
    assert parsed["aggregate"] is None
    assert parsed["benchmark"] == EXAMPLE


@pytest.mark.parametrize("aggregate", ["mean", "median", "stddev", "cv", "spread"])
def test_aggregate_suffix_maps_to_the_same_benchmark(aggregate):
    parsed = parse_name(f"{EXAMPLE}/manual_time_{aggregate}")
    assert parsed["aggregate"] == aggregate
    assert parsed["benchmark"] == EXAMPLE


def test_aggregate_suffix_on_a_parameter_token():
    parsed = parse_name("idw/shepard/cpu-serial/aos/double/p:2/size:10240_median")
    assert parsed["params"] == {"p": 2, "size": 10240}
    assert parsed["aggregate"] == "median"


def test_all_runner_tokens_are_stripped():
    name = (EXAMPLE + "/min_time:0.500/min_warmup_time:1.5s/iterations:10/repeats:5"
            "/manual_time/threads:1_cv")
    parsed = parse_name(name)
    assert parsed["benchmark"] == EXAMPLE
    assert parsed["aggregate"] == "cv"
    assert "iterations" not in parsed["params"] and "threads" not in parsed["params"]


def test_float_and_text_params():
    parsed = parse_name("idw/shepard/naive/soa/float/p:3.0/size:1024/dataset:walker_lake/real_time")
    assert parsed["params"]["p"] == 3.0 and isinstance(parsed["params"]["p"], float)
    assert parsed["params"]["dataset"] == "walker_lake"


def test_cpu_name_without_block():
    parsed = parse_name("idw/shepard/cpu-serial/aos/float/p:2/size:10240/real_time")
    assert parsed["version"] == "cpu-serial"
    assert parsed["params"] == {"p": 2, "size": 10240}


@pytest.mark.parametrize("name, complaint", [
    ("", "non-empty"),
    ("idw/shepard/naive", "expected"),
    ("idw/shepard/naive/soa/manual_time", "expected"),
    ("idw//naive/soa/float/p:2", "field 'app'"),
    ("idw/shepard/naive/p:2/float/size:5", "field 'layout'"),
    ("idw/shepard/naive/soa/float/size", "not <key>:<value>"),
    ("idw/shepard/naive/soa/float/size:", "not <key>:<value>"),
    ("idw/shepard/naive/soa/float/:5", "not <key>:<value>"),
    ("idw/shepard/naive/soa/float/p:2/bogus/manual_time", "'bogus'"),
    ("idw/shepard/naive/soa/float/p:2/p:3", "appears twice"),
])
def test_malformed_names_raise_a_clear_error(name, complaint):
    with pytest.raises(ValueError, match=complaint.replace("(", r"\(")):
        parse_name(name)


def test_non_string_name_is_rejected():
    with pytest.raises(ValueError):
        parse_name(None)
