-- Specs for grove.suggest: the "did you mean" of unknown names.
local suggest = require("grove.suggest")

describe("grove.suggest", function()
  it("counts edits: insertions, deletions, substitutions and swaps", function()
    assert.equal(0, suggest.distance("easy", "easy"))
    assert.equal(1, suggest.distance("esay", "easy"))       -- a swap
    assert.equal(1, suggest.distance("eas", "easy"))        -- an insertion
    assert.equal(1, suggest.distance("eassy", "easy"))      -- a deletion
    assert.equal(1, suggest.distance("log_level", "log-level"))
    assert.equal(0, suggest.distance("EASY", "easy"))       -- without case
    assert.equal(4, suggest.distance("", "fcfs"))
  end)

  it("offers the closest name within a third of its length", function()
    local names = {"fcfs", "easy", "conservative", "priority"}
    assert.equal("easy", suggest.closest("esay", names))
    assert.equal("conservative", suggest.closest("consrevative", names))
    assert.is_nil(suggest.closest("backfill", names))
    assert.is_nil(suggest.closest("", names))
    assert.is_nil(suggest.closest("easy", {"easy"}))        -- itself is no hint
    assert.equal(" (did you mean 'easy'?)", suggest.hint("eazy", names))
    assert.equal("", suggest.hint("zzzz", names))
  end)

  it("takes the names as a set's keys too, in sorted order", function()
    assert.equal("match", suggest.closest("mach", {match = true, cancel = true, [1] = nil}))
    assert.equal("ab", suggest.closest("a", {ab = 1, ac = 1}))
  end)
end)
