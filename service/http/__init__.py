"""What the API and the operations hooks share about a request: its objects read
once (`current`), its seat token's digest taken once (`tokens`), and the
problem answers with their catalogue of codes (`problems`).

Below `service.api` and `service.ops`, so that neither imports the other's
modules for them; it imports no part of the service above `rules`.
"""
