"""The HTTP layer: flask-smorest blueprints, schemas and error mapping."""
