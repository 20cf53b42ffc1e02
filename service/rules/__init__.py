"""The rules of Rummy: pure Python, no I/O."""
