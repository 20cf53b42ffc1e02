"""The application layer: what the API and the worker do to a stored game, free of Flask.

`transact.transact` is the one write path (load → step → bots → clock → save,
retried on a stale save); `values` holds what it loads, changes and answers;
`caches` the decoded states and legal-move listings a process keeps;
`clock` the turn clock and `due` the queue entry a state leaves; `errors` the
typed failures the API maps to problem answers.
"""
