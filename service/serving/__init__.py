"""How the service is served, and every way it reaches past a library's public
API: the gunicorn worker class, the garbage-collector settings, the Flask class,
the request-body, answer and route shortcuts, redis-py's lean command path, the
pipelined connection and the wake-up subscription, and the ``rummy-service``
command line. `versions.py` names the library versions these were checked on."""
