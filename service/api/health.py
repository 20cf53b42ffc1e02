"""`/healthz` (the process answers) and `/readyz` (the store answers too)."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from service.api.access import get_store
from service.api.jsonio import json_response
from service.api.schemas import HealthSchema
from service.api.smorest import Blueprint

blp = Blueprint("health", __name__, description="Liveness and readiness")


@blp.route("/healthz")
class Health(MethodView):
    """Liveness."""

    @blp.response(200, HealthSchema)
    @blp.doc(operationId="getHealth")
    def get(self) -> Response:
        """Liveness: the process answers"""
        return json_response({"status": "ok"})


@blp.route("/readyz")
class Ready(MethodView):
    """Readiness."""

    @blp.response(200, HealthSchema)
    @blp.problem(503, "The store does not answer or refuses writes (`store_unavailable`)")
    @blp.doc(operationId="getReadiness")
    def get(self) -> Response:
        """Readiness: the store answers and accepts writes"""
        get_store().ping()
        return json_response({"status": "ready"})
