"""Options, presets (docs/rules.md §7-§8) and the validation of overrides."""

from __future__ import annotations

import dataclasses

import jsonschema
import pytest

from service.rules.options import (
    OPTION_NAMES,
    OPTION_TABLE,
    PRESETS,
    Options,
    OptionsError,
    OptionSpec,
    options_from_json,
    options_json_schema,
    resolve_options,
)

RULES_OPTIONS = {
    "players", "hand_size", "ace", "ace_points", "melds_per_turn", "layoff_requires_own_meld",
    "go_out_requires_discard", "rummy_bonus", "stock_refill", "refill_keeps_top", "max_refills",
    "no_winner", "scoring", "end", "target_score", "rounds", "reengage", "reengage_limit", "decks",
    "jokers", "joker_points", "joker_swap", "first_meld_min_points", "concealed_rounds",
    "first_turn_no_draw", "joker_limit", "last_stock", "stake",
}  # fmt: skip
#: Options of the service beyond the rules of play (docs/fairness.md; turn clocks and
#: hints, docs/api.md), null, off or (hints) on in every preset.
TABLE_OPTIONS = {"spectator_delay", "turn_seconds", "timeouts_to_away", "hints"}


def test_every_option_of_rules_section_7_is_a_field() -> None:
    assert set(OPTION_NAMES) == RULES_OPTIONS | TABLE_OPTIONS


def test_every_preset_of_rules_section_8_exists_with_every_option() -> None:
    assert set(PRESETS) == {
        "standard", "traditional", "straight", "block", "meld_first", "express",
        "elimination", "penalty", "ace_high", "vrotham", "romme",
    }  # fmt: skip
    for preset in PRESETS.values():
        assert set(preset.to_json()["options"]) == RULES_OPTIONS | TABLE_OPTIONS
        assert preset.to_json()["name"] == preset.name and preset.description


def _diff(name: str) -> dict[str, object]:
    base = PRESETS["standard"].options.to_json()
    return {k: v for k, v in PRESETS[name].options.to_json().items() if base[k] != v}


def test_standard_preset_values() -> None:
    o = PRESETS["standard"].options
    assert (o.players, o.melds_per_turn, o.layoff_requires_own_meld) == ((2, 6), None, False)
    assert (o.go_out_requires_discard, o.rummy_bonus, o.stock_refill) == (
        False,
        "double",
        "shuffle",
    )
    assert (o.refill_keeps_top, o.max_refills, o.no_winner) == (True, None, "void")
    assert (o.scoring, o.end, o.target_score, o.ace, o.ace_points) == (
        "winner_takes_all", "target", 150, "low", 1,
    )  # fmt: skip
    assert (o.decks, o.jokers, o.joker_swap, o.first_turn_no_draw) == (1, 0, False, False)


@pytest.mark.parametrize(
    ("name", "differences"),
    [
        ("traditional", {"players": [2, 4], "refill_keeps_top": False, "max_refills": 1,
                         "last_stock": "when_empty",
                         "target_score": {"2": 100, "3": 150, "4": 200}}),
        ("straight", {"melds_per_turn": 1, "rummy_bonus": "none", "stock_refill": "turn_over",
                      "refill_keeps_top": False, "target_score": 100,
                      "no_winner": "lowest_takes_difference"}),
        ("block", {"melds_per_turn": 1, "rummy_bonus": "none", "stock_refill": "none",
                   "refill_keeps_top": False, "target_score": 100,
                   "no_winner": "lowest_takes_difference"}),
        ("meld_first", {"players": [2, 4], "layoff_requires_own_meld": True, "rummy_bonus": "none",
                        "stock_refill": "turn_over", "refill_keeps_top": False, "max_refills": 1,
                        "last_stock": "when_empty", "target_score": 200}),
        ("express", {"players": [2, 4], "ace_points": 15, "scoring": "penalty", "end": "express",
                     "refill_keeps_top": False, "no_winner": "count",
                     "go_out_requires_discard": True}),
        ("elimination", {"players": [2, 4], "ace_points": 15, "scoring": "penalty",
                         "end": "elimination", "refill_keeps_top": False, "no_winner": "count",
                         "target_score": 100, "reengage": True, "reengage_limit": 1,
                         "go_out_requires_discard": True}),
        ("penalty", {"scoring": "penalty", "no_winner": "count", "target_score": 100}),
        ("ace_high", {"ace": "high_or_low", "ace_points": 15}),
        ("vrotham", {"jokers": 3, "joker_points": 15, "joker_swap": True,
                     "joker_limit": "one_natural", "end": "rounds",
                     "rounds": 6, "hand_size": 7, "first_turn_no_draw": True,
                     "concealed_rounds": [4, 5, 6]}),
        ("romme", {"decks": 2, "jokers": 6, "joker_points": 20, "first_meld_min_points": 40,
                   "joker_swap": True, "hand_size": 13, "first_turn_no_draw": True}),
    ],
)  # fmt: skip
def test_presets_differ_from_standard_exactly_as_rules_section_8_says(
    name: str, differences: dict[str, object]
) -> None:
    assert _diff(name) == differences


def test_overrides_apply_on_top_of_the_preset() -> None:
    o = resolve_options("straight", {"target_score": 50, "ace": "around", "hand_size": 5}, 3)
    assert (o.target_score, o.ace, o.hand_size, o.melds_per_turn) == (50, "around", 5, 1)
    assert o.to_json()["hand_size"] == 5


def test_target_score_map_accepts_string_keys_and_picks_by_player_count() -> None:
    o = resolve_options("standard", {"target_score": {"2": 60, "3": 90}}, 3)
    assert o.target_score == ((2, 60), (3, 90))
    assert o.target_for(3) == 90 and o.target_for(2) == 60
    assert o.to_json()["target_score"] == {"2": 60, "3": 90}


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_hand_size_by_player_count(players: int, size: int) -> None:
    assert Options().hand_size_for(players) == size


@pytest.mark.parametrize(
    ("preset", "overrides", "players", "field", "fragment"),
    [
        ("nope", {}, 2, "preset", "unknown preset"),
        ("standard", {"colour": "red"}, 2, "colour", "unknown option"),
        ("standard", {}, 7, "players", "2 to 6 players, not 7"),
        ("traditional", {}, 5, "players", "2 to 4 players, not 5"),
        ("standard", {"players": [1, 4]}, 2, "players", "[min, max]"),
        ("standard", {"players": [2, 7]}, 2, "players", "[min, max]"),
        ("standard", {"hand_size": 12}, 5, "hand_size", "5 hands of 12 cards"),
        ("standard", {"hand_size": 0}, 2, "hand_size", "integer 1..13"),
        (
            "standard",
            {"hand_size": 2, "go_out_requires_discard": True},
            2,
            "hand_size",
            "at least 3 cards",
        ),
        ("standard", {"ace": "middle"}, 2, "ace", "low, high_or_low, around"),
        ("standard", {"ace_points": 11}, 2, "ace_points", "1 or 15"),
        ("standard", {"melds_per_turn": 2}, 2, "melds_per_turn", "null or 1"),
        ("standard", {"layoff_requires_own_meld": "yes"}, 2, "layoff_requires_own_meld", "true"),
        ("standard", {"rummy_bonus": "triple"}, 2, "rummy_bonus", "double"),
        ("standard", {"stock_refill": "burn"}, 2, "stock_refill", "shuffle"),
        ("standard", {"max_refills": -1}, 2, "max_refills", "or null"),
        ("standard", {"no_winner": "all"}, 2, "no_winner", "void"),
        ("standard", {"scoring": "x"}, 2, "scoring", "winner_takes_all"),
        ("standard", {"end": "never"}, 2, "end", "target"),
        ("standard", {"target_score": 0}, 2, "target_score", "integer 1..1000"),
        ("standard", {"target_score": {"9": 100}}, 2, "target_score", "player count"),
        ("standard", {"target_score": {"3": 100}}, 2, "target_score", "no target for 2"),
        ("standard", {"end": "rounds"}, 2, "rounds", "needs a number of rounds"),
        ("standard", {"end": "elimination"}, 2, "end", "penalty scoring"),
        ("standard", {"decks": 3}, 2, "decks", "1..2"),
        ("standard", {"jokers": 7}, 2, "jokers", "0..6"),
        ("standard", {"concealed_rounds": [0]}, 2, "concealed_rounds", "round numbers"),
        ("standard", {"first_turn_no_draw": 1}, 2, "first_turn_no_draw", "true or false"),
        ("standard", {"hand_size": 9}, 6, "hand_size", "the deck has 52"),
    ],
)
def test_bad_overrides_are_refused_with_a_clear_message(
    preset: str, overrides: dict[str, object], players: int, field: str, fragment: str
) -> None:
    with pytest.raises(OptionsError) as err:
        resolve_options(preset, overrides, players)
    assert field in err.value.errors
    assert fragment in " ".join(err.value.errors[field])


def test_options_json_round_trips_for_every_preset() -> None:
    for preset in PRESETS.values():
        assert options_from_json(preset.options.to_json()) == preset.options


def test_options_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PRESETS["standard"].options.ace = "around"  # type: ignore[misc]


def _largest(spec: OptionSpec) -> object:
    """The largest value the option's row allows, in JSON form."""
    if spec.kind == "players":
        return [spec.high, spec.high]
    if spec.kind == "round_list":
        return list(range(spec.high - spec.max_items + 1, spec.high + 1))
    if spec.kind == "choice":
        return spec.choices[-1]
    if spec.kind == "bool":
        return True
    return spec.high


def _too_large(spec: OptionSpec) -> object:
    """A value just past the row's upper bound (or outside its choices), in JSON form."""
    if spec.kind == "players":
        return [spec.low, spec.high + 1]
    if spec.kind == "round_list":
        return [spec.low] * (spec.max_items + 1)  # padded: one item too many
    if spec.kind == "choice":
        return "x" * 10_000
    if spec.kind == "bool":
        return 1
    return spec.high + 1


@pytest.mark.parametrize("spec", OPTION_TABLE, ids=lambda spec: spec.name)
def test_every_option_is_bounded_and_its_edge_is_checked(spec: OptionSpec) -> None:
    assert spec.description and spec.kind in (
        "bool", "choice", "int", "players", "target", "round_list",
    )  # fmt: skip
    if spec.kind in ("int", "players", "target", "round_list"):
        assert spec.high > 0
    errors: dict[str, list[str]] = {}
    spec.convert(_largest(spec), errors)
    assert errors == {}
    spec.convert(_too_large(spec), errors)
    assert list(errors) == [spec.name]
    # A padded value is named in the message only in part.
    assert all(len(message) < 200 for message in errors[spec.name])


@pytest.mark.parametrize("spec", OPTION_TABLE, ids=lambda spec: spec.name)
def test_the_options_schema_agrees_with_the_table(spec: OptionSpec) -> None:
    schema = options_json_schema()
    validator = jsonschema.Draft202012Validator(schema)
    assert schema["properties"][spec.name]["description"] == spec.description
    assert validator.is_valid({spec.name: _largest(spec)})
    assert validator.is_valid({spec.name: Options().to_json()[spec.name]})
    assert not validator.is_valid({spec.name: _too_large(spec)})
    assert not validator.is_valid({"colour": "red"})


def test_the_table_gives_the_defaults_of_options() -> None:
    assert Options().to_json() == {spec.name: options_json_schema()["properties"][spec.name][
        "default"] for spec in OPTION_TABLE}  # fmt: skip
    assert Options() == PRESETS["standard"].options


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"target_score": 10**15}, "target_score"),
        ({"target_score": {"2": 10**15}}, "target_score"),
        ({"rounds": 101, "end": "rounds"}, "rounds"),
        ({"concealed_rounds": [1] * 9000}, "concealed_rounds"),
        ({"concealed_rounds": [101]}, "concealed_rounds"),
        ({"hand_size": 22}, "hand_size"),
        ({"first_meld_min_points": 500}, "first_meld_min_points"),
        ({"max_refills": 10**9}, "max_refills"),
        ({"reengage_limit": 11}, "reengage_limit"),
    ],
)
def test_values_past_an_upper_bound_are_refused(overrides: dict[str, object], field: str) -> None:
    with pytest.raises(OptionsError) as err:
        resolve_options("romme", overrides, 2)
    assert field in err.value.errors


def test_presets_keep_no_turn_clock() -> None:
    assert {preset.options.turn_seconds for preset in PRESETS.values()} == {None}
