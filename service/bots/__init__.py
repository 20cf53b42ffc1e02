"""Built-in players and the reference HTTP bot client."""
