"""The authoritative side of notty: the rules engine, bots and simulator."""
