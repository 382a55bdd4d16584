# The C extension built from _native.c (see _impl.py). Each function returns None when the
# ruleset or input is one it leaves to the Python code.

from games.notty import Card

from ._impl import Group, Info

Flat = tuple[int, ...]
VERSION: int

def best_discard(hand: object, info: Info) -> list[Group] | None: ...
def max_discard_of(hand: object, info: Info) -> int | None: ...
def grid(hand: object, colour_index: tuple[int, ...], numbers: int, copies: int) -> bytes | None: ...
def max_discard(grid: bytes, colours: int, copies: int, shortest: int, smallest: int) -> int | None: ...
def best_groups(
    grid: bytes,
    colours: int,
    copies: int,
    shortest: int,
    smallest: int,
    cards: tuple[tuple[Card, ...], ...],
) -> tuple[tuple[Card, ...], ...] | None: ...
def finishers(
    hand: Flat,
    deck: Flat,
    draw: int,
    colours: int,
    numbers: int,
    shortest: int,
    smallest: int,
    max_states: int,
) -> tuple[frozenset[Flat], bool] | None: ...
def finishing_ways(
    hand: Flat,
    deck: Flat,
    draw: int,
    colours: int,
    numbers: int,
    shortest: int,
    smallest: int,
    max_states: int,
) -> tuple[int, bool] | None: ...
