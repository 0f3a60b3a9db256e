"""Benchmark names: the one parser (results/README.md, "Benchmark names").

A name is `<paper>/<app>/<version>/<layout>/<precision>/<key>:<value>/...`. Google
Benchmark appends its own tokens (`manual_time`, `iterations:N`, ...) and, for aggregate
entries, `_<aggregate>` on the last token; both are stripped here so every entry of one
benchmark maps to the same canonical name.
"""

import re

FIELDS = ("paper", "app", "version", "layout", "precision")
AGGREGATES = ("mean", "median", "stddev", "cv", "spread")

_BARE_RUNNER_TOKENS = {"manual_time", "real_time", "process_time"}
_KEYED_RUNNER_TOKENS = {"iterations", "repeats", "threads", "min_time", "min_warmup_time"}
_AGGREGATE_SUFFIX = re.compile(r"_(" + "|".join(AGGREGATES) + r")$")
_INT = re.compile(r"[+-]?\d+$")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


def parse_name(name):
    """Split a benchmark name into its fields.

    Returns a dict with the five FIELDS, `params` (values as int/float where numeric),
    `aggregate` (e.g. "median", or None for an iteration entry) and `benchmark` (the
    canonical name without runner tokens or aggregate suffix).
    Raises ValueError naming the problem for a malformed name.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"benchmark name must be a non-empty string, got {name!r}")
    tokens = name.split("/")
    aggregate = None
    suffix = _AGGREGATE_SUFFIX.search(tokens[-1])
    if suffix:
        aggregate = suffix.group(1)
        tokens[-1] = tokens[-1][: suffix.start()]
    while tokens and _is_runner_token(tokens[-1]):
        tokens.pop()

    if len(tokens) < len(FIELDS):
        raise ValueError(
            f"benchmark name {name!r} has {len(tokens)} fields before its parameters; "
            f"expected {'/'.join(FIELDS)}/<key>:<value>/..."
        )
    parsed = {}
    for field, token in zip(FIELDS, tokens):
        if not token or ":" in token:
            raise ValueError(f"benchmark name {name!r}: field '{field}' is {token!r}")
        parsed[field] = token
    parsed["params"] = _parse_params(name, tokens[len(FIELDS):])
    parsed["aggregate"] = aggregate
    parsed["benchmark"] = "/".join(tokens)
    return parsed


def _is_runner_token(token):
    """True for a token Google Benchmark appends to a registered name."""
    if token in _BARE_RUNNER_TOKENS:
        return True
    key, sep, value = token.partition(":")
    return bool(sep) and key in _KEYED_RUNNER_TOKENS and bool(_FLOAT.match(value.removesuffix("s")))


def _parse_params(name, tokens):
    params = {}
    for token in tokens:
        key, sep, value = token.partition(":")
        if not sep or not key or not value:
            raise ValueError(f"benchmark name {name!r}: parameter {token!r} is not <key>:<value>")
        if key in params:
            raise ValueError(f"benchmark name {name!r}: parameter '{key}' appears twice")
        params[key] = _number_or_text(value)
    return params


def _number_or_text(value):
    if _INT.match(value):
        return int(value)
    if _FLOAT.match(value):
        return float(value)
    return value
