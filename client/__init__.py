"""The terminal client, ``notty-client``, and ``notty-watch``."""
