"""Game persistence behind one protocol (memory and Redis)."""
