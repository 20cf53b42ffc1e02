"""The reference Rummy game service."""
