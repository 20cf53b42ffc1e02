"""How the service is served: the gunicorn worker class, the garbage-collector
settings, the Flask class and the ``rummy-service`` command line."""
