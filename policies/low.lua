-- low: lowest vertex id first, at every level.
--
-- Children are visited in ascending order of their id (the number in
-- their name: node3 before node12), the older vertex first when ids are
-- equal.  Jobs pack at the low end of every id range, leaving the high end
-- free for large requests.  Use it for predictable placements that read
-- well in listings.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "low",
  description = "lowest vertex id first at every level",
  order = { key = "id" },
}
