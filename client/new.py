"""``new [GAME] [VARIANT] [SEATS] [BOT|human...] [OPTION...] [time SECONDS]``: a table asked for in
words, read against what the server's welcome says it hosts (:class:`client.catalog.Catalog`).

An option is set by one of its choices anywhere in the line (Notty: ``hard`` sets ``level``) or
by ``NAME VALUE`` (``turn_limit 200``, or a word of the game's own for it: ``limit 200``);
``time 60`` gives every turn 60 seconds, past which the game's stand-in bot plays the rest. The
rest is positional: the game, its variant, the number of seats, then who sits in the other seats;
seats left unnamed stay open, and with no one named the game's default bot takes them all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games import Option
from games._interface import range_text
from games._ui import GameUI, NumberWord, did_you_mean, game_and_variant, is_number
from protocol import CreateTable

from .catalog import Catalog, GameInfo

#: The word in ``new`` for a seat kept for a person, who joins it later.
HUMAN = "human"
USAGE = "new [GAME] [VARIANT] [SEATS] [BOT|human...] [OPTION...] [time SECONDS]"
#: The word in ``new`` for the turn time, which every game's tables have (``time 60``).
TIME = "time"
#: The most a turn may be given: the protocol's bound on ``turn_seconds``.
MAX_TURN_SECONDS = 3600
#: The least: a shorter time is over before a person has read the table (the protocol takes 1).
MIN_TURN_SECONDS = 10


def new_table(args: Sequence[str], catalog: Catalog) -> CreateTable:
    """The table ``new ARGS`` asks for; :class:`ValueError` saying what is wrong with the words."""
    words = [word.lower() for word in args]
    turn_seconds = _turn_seconds(words)
    game = _which_game(words, catalog)
    ui = catalog.ui(game.name)
    players = (*game.bots, HUMAN)
    options, rest = _options(words, game, ui, reserved={game.name, *game.variants, *players})
    if rest and rest[0] == game.name:
        rest.pop(0)
    variant, variant_named = next(iter(game.variants)), False
    if rest and not is_number(rest[0]) and rest[0] not in players:
        variant, variant_named = rest.pop(0), True
        if variant not in game.variants:
            raise ValueError(_neither(variant, game, ui, players, catalog, named=game.name in words))
    low, high = game.variants[variant].min_players, game.variants[variant].max_players
    bot = ui.default_bot if ui.default_bot in game.bots else next(iter(game.bots), None)
    counted = bool(rest) and is_number(rest[0])
    if counted:
        seats = int(rest.pop(0))
        others = rest  # what sits in the other seats
    else:  # no count: one seat each for the players named, and one for you; else the game's own
        seats, others = (len(rest) + 1 if rest else min(max(ui.default_seats or low, low), high)), rest
    if not low <= seats <= high:  # before anything is built for that many seats
        # The game and, if it has several, the variant meant (its first, unless the line named one: another
        # may take more seats), in the same words whether the line named it or not ('part4' alone is no
        # word to meet first here); and how a count of seats not typed came about.
        table = game_and_variant(game.name, variant, game.title) if len(game.variants) > 1 else game.title
        why = f"{_a(table)} {table} table has {range_text(low, high)} seats"
        if not counted and others:
            named = f"{len(others)} players" if len(others) > 1 else "player"
            why += f": the {named} named and you make {seats}"
        fits = [name for name, info in game.variants.items() if info.min_players <= seats <= info.max_players]
        if fits and not variant_named:
            why += f"; {' and '.join(fits)} {'takes' if len(fits) == 1 else 'take'} {seats}"
        raise ValueError(why)
    if not others and bot is not None:
        others = [bot] * (seats - 1)
    _check_others(
        others, game, ui, players, catalog, seats if counted else None, variant if variant_named else None
    )
    bots = [word for word in others if word != HUMAN]
    if HUMAN in others and len(others) >= seats:
        raise ValueError(f"{len(others)} players besides you do not fit at {seats} seats")
    if len(bots) > seats:
        raise ValueError(f"{len(bots)} bots do not fit at {seats} seats")
    return CreateTable(game.name, seats, variant, tuple(bots), options, turn_seconds=turn_seconds)


def _turn_seconds(words: list[str]) -> int:
    """The turn time ``time SECONDS`` sets (0, none, unless given), taking both words out of ``words``."""
    if TIME not in words:
        return 0
    at = words.index(TIME)
    if TIME in words[at + 1 :]:
        raise ValueError(f"one {TIME}, please")
    value = words[at + 1] if at + 1 < len(words) else ""
    if not is_number(value) or int(value) > MAX_TURN_SECONDS or 0 < int(value) < MIN_TURN_SECONDS:
        seconds = f"{MIN_TURN_SECONDS} to {MAX_TURN_SECONDS:,} (0: no turn time)"
        raise ValueError(f"'{TIME}' takes a number of seconds, {seconds}, e.g. '{TIME} 60'")
    del words[at : at + 2]
    return int(value)


def new_words(catalog: Catalog, typed: Sequence[str] = ()) -> list[str]:
    """The words ``new`` knows, for tab completion: once ``typed`` names a game (or one of its
    variants), that game's alone; after an option's name, its choices alone. A choice stands for
    its option by itself ('hard'), unless another option has it too ('yes'): then the name does."""
    named = set(typed)
    words = [HUMAN] + ([] if TIME in named else [TIME])
    chosen = [game for game in catalog.games.values() if game.name in named or set(game.variants) & named]
    for game in chosen[:1] or catalog.games.values():
        if typed and (option := game.options.get(typed[-1])) is not None:
            return list(option.choices)  # its value: a choice, or a number (none to offer)
        if typed and typed[-1] in catalog.ui(game.name).number_words:
            return []  # 'limit', a number's other word
        ui = catalog.ui(game.name)
        words += [game.name, *game.variants, *game.bots, *ui.number_words]
        choices = Counter(choice for option in game.options.values() for choice in option.choices)
        for option in game.options.values():
            alone = option.choices and all(choices[choice] == 1 for choice in option.choices)
            words += option.choices if alone else [option.name]
    return words


def _which_game(words: Sequence[str], catalog: Catalog) -> GameInfo:
    """The game named, else the first with a variant named, else the server's first."""
    if not catalog.games:
        raise ValueError("this server hosts no game this client can start")
    named = sorted({word for word in words if word in catalog.games})
    if len(named) > 1:
        raise ValueError(f"one game, please, not {' and '.join(named)}")
    if named:
        return catalog.games[named[0]]
    for game in catalog.games.values():
        if any(word in game.variants for word in words):
            return game
    return next(iter(catalog.games.values()))


def _options(
    words: list[str], game: GameInfo, ui: GameUI, reserved: set[str]
) -> tuple[dict[str, int | str], list[str]]:
    """The options the words set, and the words left once those are taken out."""
    numbers = {
        **{name: NumberWord(name, o.low, "a whole number", None) for name, o in game.options.items()},
        **{word: alias for word, alias in ui.number_words.items() if alias.option in game.options},
    }
    chosen: dict[str, set[str]] = {}  # choices named, by option: the same one twice is no conflict
    counted: dict[str, int | str] = {}
    rest: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word in numbers and word not in reserved:
            value = words[at + 1] if at + 1 < len(words) else ""
            name = numbers[word].option
            if name in counted or name in chosen:
                raise ValueError(f"one {word}, please")
            counted[name] = _value(word, value, numbers[word], game.options[name])
            at += 2
            continue
        owners = [o for o in game.options.values() if word in o.choices]
        if len(owners) == 1 and word not in reserved:
            if owners[0].name in counted:
                raise ValueError(f"one {owners[0].name}, please")
            chosen.setdefault(owners[0].name, set()).add(word)
        else:
            rest.append(word)
        at += 1
    for name, values in chosen.items():
        if len(values) > 1:
            order = game.options[name].choices
            raise ValueError(f"one {name}, please, not {' and '.join(sorted(values, key=order.index))}")
        counted[name] = values.pop()
    return counted, rest


def _value(word: str, value: str, number: NumberWord, option: Option) -> int | str:
    """The value after an option's name: a choice of it, or a whole number in its range."""
    if option.choices:
        if value not in option.choices:
            raise ValueError(f"'{word}' takes one of {', '.join(option.choices)}")
        return value
    low, high = max(number.low, option.low), option.high
    if not is_number(value) or not low <= int(value) <= high:
        example = f", e.g. '{word} {number.example}'" if number.example is not None else ""
        raise ValueError(f"'{word}' takes {number.what}, {low:,} to {high:,}{example}")
    return int(value)


def _check_others(
    others: Sequence[str],
    game: GameInfo,
    ui: GameUI,
    players: Sequence[str],
    catalog: Catalog,
    counted: int | None,
    variant: str | None,
) -> None:
    """Who is to sit in the other seats: each a bot of this game or ``human``. ``counted``: the number
    of seats, if the line gave one; ``variant``: the variant, if the line named one."""
    noun = ui.variant_noun
    for word in others:
        elsewhere = _elsewhere(word, game, catalog)
        if elsewhere and word not in players:  # 'hard' (a level of Notty's), 'qlearn' at a table of huxxy
            raise ValueError(elsewhere)
        if is_number(word) and counted is not None:
            raise ValueError(f"two numbers of seats, {counted} and {word}: give one, after the {noun}")
        if is_number(word):
            raise ValueError(f"the number of seats goes first: {_usage(ui)}")
        if word in game.variants and variant is not None and word != game.name:
            raise ValueError(f"two {noun}s, {variant} and {word}: a table plays one")
        if word == game.name or word in game.variants:
            raise ValueError(
                f"the {'game' if word == game.name else ui.variant_noun} goes first: {_usage(ui)}"
            )
        if word not in players:
            options = [option.name for option in game.options.values()]
            words = [
                *options,
                *(alias for alias in ui.number_words if ui.number_words[alias].option in options),
            ]
            meant = word.replace("-", "_").split("=")[0]  # 'hand-limit', 'hand_limit=5': an option's name
            player = did_you_mean(word.replace("_", "-"), players)  # 'expert_hard': a player still
            if not player and ((guess := did_you_mean(meant, words)) or "_" in word or "=" in word):
                named = f"{game.title} has no option {word!r}" + (f" ({guess})" if guess else "")
                raise ValueError(
                    f"{named}: its options are {', '.join(options)}, each a name and then its value"
                )
            players_are = f"players are {', '.join(players)}"
            raise ValueError(f"{word!r} is not a player here: {players_are}" + _then(player))


def _neither(
    word: str, game: GameInfo, ui: GameUI, players: Sequence[str], catalog: Catalog, named: bool
) -> str:
    """Why ``word``, where the variant goes, is none of what may go there; ``named``: the line names
    the game (else a variant of another game could still have been meant)."""
    elsewhere = _elsewhere(word, game, catalog)
    if elsewhere:
        return elsewhere
    variants = f"a {ui.variant_noun}" + (f" of {game.name}" if len(catalog.games) > 1 else "")
    variants += f" ({', '.join(game.variants)})"
    if len(catalog.games) > 1:
        variants = f"a game ({', '.join(catalog.games)}), {variants}"
    fitting = [*catalog.games, *game.variants, *players, *_option_words(game, catalog), TIME]
    if not named:
        fitting += [variant for other in catalog.games.values() for variant in other.variants]
    guess = did_you_mean(word, [other for other in fitting if other != word])  # never the word itself
    return f"{word!r} is neither {variants} nor a player ({', '.join(players)})" + _then(guess)


def _elsewhere(word: str, game: GameInfo, catalog: Catalog) -> str:
    """For a word of other games' tables and not of ``game``'s, whose it is: a variant
    (``five-colour`` at a table of huxxy), a player (``qlearn``), or a word that names or sets an
    option (``hard``, ``limit``, ``turn_limit``), then, for a player, who plays here; else ``""``."""
    if word in {game.name, *game.variants, *game.bots, *_option_words(game, catalog)}:
        return ""
    others = [other for other in catalog.games.values() if other.name != game.name]
    if variant_of := [other.name for other in others if word in other.variants]:
        noun, ours = catalog.ui(variant_of[0]).variant_noun, catalog.ui(game.name).variant_noun
        where = f"{' and '.join(variant_of)}, not a {ours} of {game.name} ({', '.join(game.variants)})"
        return f"{word!r} is a {noun} of {where}"
    if player_of := [other.name for other in others if word in other.bots]:
        players = (*game.bots, HUMAN)
        where = f"{' and '.join(player_of)} tables, not at {game.name} tables"
        return f"{word!r} plays at {where}; players are {', '.join(players)}" + _then(
            did_you_mean(word, players)
        )
    if games := [other.name for other in others if word in _option_words(other, catalog)]:
        where = f"{' and '.join(games)} tables have and {game.name} tables do not"
        return f"{word!r} sets an option that {where}"  # who plays here is beside the point
    return ""


def _option_words(game: GameInfo, catalog: Catalog) -> set[str]:
    """The words that name or set ``game``'s options in ``new``: each option's name and choices, and
    the game's own words for its number options (Notty: ``limit``, ``quiet``)."""
    numbers = catalog.ui(game.name).number_words
    words = {word for word, alias in numbers.items() if alias.option in game.options}
    for option in game.options.values():
        words |= {option.name, *option.choices}
    return words


def _a(word: str) -> str:
    """The article before ``word`` (a game's title or a variant): 'an Ochos Locos table'."""
    return "an" if word[:1].lower() in ("a", "e", "i", "o", "u") else "a"


def _then(guess: str) -> str:
    """A guess at what was meant, to end a refusal: ``"; did you mean 'classic'?"``, or nothing."""
    return f"; {guess}" if guess else ""


def _usage(ui: GameUI) -> str:
    return USAGE.replace("VARIANT", ui.variant_noun.upper())
