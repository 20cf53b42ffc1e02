"""`/presets`: the named rule sets, with the full value of every option."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.api.jsonio import json_response
from service.api.schemas import PresetListSchema, PresetSchema
from service.api.smorest import Blueprint, common_errors
from service.http.problems import Problem
from service.rules.options import PRESETS

blp = Blueprint("presets", __name__, url_prefix="/presets", description="Rule presets")


def _preset_json(name: str) -> dict[str, Any]:
    return PRESETS[name].to_json()


@blp.route("")
class PresetList(MethodView):
    """The collection of presets."""

    @blp.response(200, PresetListSchema)
    @blp.doc(operationId="listPresets")
    def get(self) -> Response:
        """List every rule preset"""
        return json_response({"presets": [_preset_json(name) for name in PRESETS]})


@blp.route("/<string:name>")
class PresetByName(MethodView):
    """One preset."""

    @blp.response(200, PresetSchema)
    @common_errors(blp, 429)
    @blp.problem(404, "No preset of that name (`preset_not_found`)")
    @blp.doc(operationId="getPreset")
    def get(self, name: str) -> Response:
        """Get one rule preset by name"""
        if name not in PRESETS:
            raise Problem(404, "preset_not_found", f"There is no preset named {name!r}.")
        return json_response(_preset_json(name))
