"""The server's limits (server.limits), where mutation testing found the limits tests silent: a bucket
that is full, a clock that steps back, the flood bound, how defaults and bad numbers are shown, and
a global IPv6 peer that names a zone."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from server.limits import MAX_REFUSALS, TokenBucket, add_limit_arguments, counted_address


def test_a_bucket_is_full_when_new_and_again_once_it_has_grown_back() -> None:
    bucket = TokenBucket(rate=2.0, burst=3)
    assert bucket.full(0.0)
    assert bucket.take(0.0) and not bucket.full(0.0)
    assert not bucket.full(0.25)  # half a token back: 2.5 of 3
    assert bucket.full(0.5)
    assert bucket.full(100.0)


def test_a_clock_that_steps_back_takes_no_tokens_either() -> None:
    bucket = TokenBucket(rate=1.0, burst=3)
    assert bucket.take(100.0)
    assert bucket.available(50.0) == 2.0
    assert bucket.available(100.0) == 2.0
    assert bucket.take(100.0) and bucket.take(100.0) and not bucket.take(100.0)


def test_a_flood_is_told_ten_times_as_documented() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "SERVER.md").read_text(encoding="utf-8")
    assert "only 10 times in a row" in doc
    assert MAX_REFUSALS == 10


def test_the_flags_show_their_defaults_as_people_write_numbers() -> None:
    parser = argparse.ArgumentParser()
    add_limit_arguments(parser)
    shown = " ".join(parser.format_help().split())
    for default in ("(default 10)", "(default 0.2)", "(default 43200)", "(default 1048576)", "(default 0.5)"):
        assert default in shown
    assert "(default 10.0)" not in shown and "e+06" not in shown


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--rate", "lots"], "argument --rate: must be a number, not 'lots'"),
        (["--bot-only-delay", "soon"], "argument --bot-only-delay: must be a number, not 'soon'"),
        (["--burst", "2.5"], "argument --burst: must be a whole number, not '2.5'"),
    ],
)
def test_a_refused_flag_says_whether_it_takes_any_number_or_a_whole_one(
    flags: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    add_limit_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(flags)
    assert says in capsys.readouterr().err


def test_a_global_ipv6_peer_that_names_a_zone_still_counts_by_its_64() -> None:
    assert counted_address("2001:db8:9:9::5%eth0") == "2001:db8:9:9::/64"
    assert counted_address("2001:db8:9:9::5%eth0", "2001:db8:1:2::1") == "2001:db8:9:9::/64"
