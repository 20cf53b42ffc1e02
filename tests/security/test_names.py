"""Names a hostile player might choose: refused with one 422, or stored normalised.

Through the app's HTTP interface (in process: the rule is the schema's, the
same under gunicorn; tests/security/test_headers.py sends one over gunicorn).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from service.api.names import MAX_NAME_LENGTH, NAME_RULE
from service.app import create_app, shutdown
from service.config import TestConfig

REFUSED = {
    "empty": "",
    "blank": "   ",
    "only a tab": "\t",
    "too long": "x" * (MAX_NAME_LENGTH + 1),
    "too long as sent, though not once composed": "e\u0301" * MAX_NAME_LENGTH,
    "NUL": "A\u0000nn",
    "escape sequence": "B\u001b[31mob",
    "right-to-left override": "Ann\u202egnp.exe",
    "bidi isolate": "\u2066Ann\u2069",
    "zero-width space": "An\u200bn",
    "zero-width joiner only": "\u200d",
    "byte order mark": "\ufeffAnn",
    "line separator": "Ann\u2028Bob",
    "paragraph separator": "Ann\u2029Bob",
    "newline": "Ann\nBob",
    "Unicode tag characters": "Ann\U000e0041",
}


@pytest.fixture(scope="module")
def client() -> Iterator[FlaskClient]:
    """One app for the module (building one costs more than these tests): each test
    works on games of its own."""
    app = create_app(TestConfig())
    yield app.test_client()
    shutdown(app)


def _create(client: FlaskClient, name: str) -> object:
    return client.post("/games", json={"seats": [{"name": name}, {"name": None}]})


@pytest.mark.parametrize("name", list(REFUSED.values()), ids=list(REFUSED))
def test_a_refused_name_answers_422_with_the_rule(client: FlaskClient, name: str) -> None:
    answer = client.post("/games", json={"seats": [{"name": name}, {"name": None}]})
    assert answer.status_code == 422, answer.get_json()
    problem = answer.get_json()
    assert problem["code"] == "validation_error"
    assert NAME_RULE in str(problem["errors"])


@pytest.mark.parametrize("name", list(REFUSED.values()), ids=list(REFUSED))
def test_joining_with_a_refused_name_answers_422(client: FlaskClient, name: str) -> None:
    created = client.post("/games", json={"seats": [{"name": "Ann"}, {"name": None}]})
    game_id = created.get_json()["id"]
    answer = client.post(f"/games/{game_id}/join", json={"name": name})
    assert answer.status_code == 422
    assert NAME_RULE in str(answer.get_json()["errors"])


def test_names_are_stored_nfc_normalised_and_trimmed(client: FlaskClient) -> None:
    decomposed = " \tZoe\u0308 \n"  # "Zoë" as Z o e + combining diaeresis, padded
    created = client.post("/games", json={"seats": [{"name": decomposed}, {"name": None}]})
    assert created.status_code == 201
    game_id = created.get_json()["id"]
    joined = client.post(f"/games/{game_id}/join", json={"name": "Ame\u0301lie"})
    view = client.get(f"/games/{game_id}").get_json()
    names = [seat["name"] for seat in view["seats"]]
    assert names == ["Zo\u00eb", "Am\u00e9lie"]
    assert joined.status_code == 201
    assert all(unicodedata.is_normalized("NFC", name) for name in names)


def test_the_longest_name_and_markup_are_plain_text(client: FlaskClient) -> None:
    longest = "\u00e9" * MAX_NAME_LENGTH
    markup = "<script>alert(1)</script>"
    created = client.post("/games", json={"seats": [{"name": longest}, {"name": markup}]})
    assert created.status_code == 201
    names = [seat["name"] for seat in created.get_json()["seats"]]
    assert names == [longest, markup]
    assert created.headers["X-Content-Type-Options"] == "nosniff"


def test_the_openapi_document_states_the_rule(client: FlaskClient) -> None:
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    name = schemas["Join"]["properties"]["name"]
    assert name["maxLength"] == MAX_NAME_LENGTH
    assert NAME_RULE in name["description"]
    pattern = re.compile(name["pattern"])
    assert pattern.match("Zo\u00eb") and pattern.match(" Ann ")
    # The pattern covers the Basic Multilingual Plane (ECMA-262 without the u flag).
    in_bmp = [bad for bad in REFUSED.values() if all(ord(ch) < 0x10000 for ch in bad)]
    assert not any(pattern.match(bad) for bad in in_bmp if len(bad) <= MAX_NAME_LENGTH)
