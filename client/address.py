"""What is typed on the command line, read: a server's address, and a player's name."""

from __future__ import annotations

import ipaddress
import unicodedata

from games._ui import is_number
from protocol import DEFAULT_PORT, NAME, ProtocolError

#: The protocol's rule for a name (:data:`protocol.NAME`) in words, for the user.
NAME_RULE = (
    f"{NAME.low} to {NAME.high} ASCII letters, digits, spaces, '_', '.' or '-', "
    "starting with a letter or digit"
)
#: The name when the login name has nothing the protocol allows.
DEFAULT_NAME = "player"


def parse_address(text: str) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``:PORT`` (this machine), or IPv6: ``::1`` alone, or in brackets
    to give a port (``[::1]:4008``), as in URLs: a bare IPv6 address's last group is no port.
    A ``ValueError`` says, in a sentence, what is wrong with anything else."""
    shown = repr(text) if len(text) <= 60 else f"{text[:60]!r}…"
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket:
            raise ValueError(f"bad address {shown}: an IPv6 address in '[' needs its ']'")
        if not _is_ipv6(host):
            raise ValueError(
                f"bad address {shown}: brackets hold an IPv6 address, such as [::1]:{DEFAULT_PORT}"
            )
        if not rest:
            return host, DEFAULT_PORT
        if not rest.startswith(":"):
            raise ValueError(f"bad address {shown}: after ']' comes ':PORT' or nothing")
        port = rest[1:]
    elif text.count(":") > 1:
        if not _is_ipv6(text):
            raise ValueError(
                f"bad address {shown}: not an IPv6 address (one with a port goes in brackets: "
                f"[::1]:{DEFAULT_PORT})"
            )
        return text, DEFAULT_PORT
    else:
        host, colon, port = text.partition(":")
        if not colon:
            if text.isascii() and text.isdigit():  # a port, surely: no one names a host with digits alone
                if _is_port(text):
                    raise ValueError(f"bad address {shown}: a port alone is written with its colon, :{text}")
                raise ValueError(  # ':0' would be refused in turn: no suggesting it
                    f"bad address {shown}: a port alone is written with its colon (:PORT), and the port "
                    f"must be a number from 1 to 65535, not {text[:20]!r}"
                )
            return text, DEFAULT_PORT
        host = host or "localhost"
    if not _is_port(port):
        said = f"{port[:20]!r}" if port else "nothing"
        raise ValueError(f"bad address {shown}: the port must be a number from 1 to 65535, not {said}")
    return host, int(port)


def _is_port(text: str) -> bool:
    """A TCP port, 1 to 65535, in ASCII digits (leading zeros allowed: ``:04008``)."""
    return is_number(text) and 0 < int(text) < 65536


def address_text(host: str, port: int) -> str:
    """``host:port`` as the user would type it back: an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)  # a zone ("fe80::1%eth0") too
    except ValueError:
        return False
    return True


def name_from_login(login: str) -> str:
    """A name the protocol accepts, made of a login name (:func:`folded_name`), or :data:`DEFAULT_NAME`."""
    return folded_name(login) or DEFAULT_NAME


def folded_name(text: str) -> str:
    """A name the protocol accepts made of ``text``: letters folded to ASCII, the rest dropped, cut
    to the longest allowed; ``""`` if nothing of it is left."""
    name = ""
    for char in unicodedata.normalize("NFKD", text):  # 'é' becomes 'e' and an accent, which goes
        if char == " " and name.endswith(" "):  # one space between words, where what was dropped left two
            continue
        if _acceptable(name + char):
            name += char
    return name.rstrip(" ")  # a space dropped after it ('ann 李') would not show


def _acceptable(name: str) -> bool:
    try:
        NAME.check(name, "name")
    except ProtocolError:
        return False
    return True
