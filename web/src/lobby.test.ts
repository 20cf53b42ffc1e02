import { describe, expect, it } from "vitest";
import spec from "../../openapi/openapi.json";
import { contract } from "./contract";
import { overrides, seatSpecs } from "./lobby";

describe("create form", () => {
  it("takes the name limit and the bots from the contract", () => {
    const join = spec.components.schemas.Join as { properties: { name: { maxLength: number } } };
    expect(contract.nameMaxLength).toBe(join.properties.name.maxLength);
    expect(contract.bots).toContain("greedy");
  });

  it("turns the seat choices into the create request's seats", () => {
    expect(seatSpecs(["me", "greedy", "open", "random"], "Ann")).toEqual([
      { name: "Ann" },
      { bot: "greedy" },
      { name: null },
      { bot: "random" },
    ]);
  });

  it("sends only the options that differ from the preset", () => {
    expect(overrides({ target_score: 150, jokers: 0 }, { target_score: 150, jokers: 2 })).toEqual({
      jokers: 2,
    });
  });
});
