"""The terminal client (networked play arrives with issue 3)."""
