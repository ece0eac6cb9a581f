-- low: lowest vertex id first, at every level.
--
-- Children are visited in ascending order of their id (the number in
-- their name: node3 before node12), the older vertex first when ids are
-- equal.  Jobs pack at the low end of every id range, leaving the high end
-- free for large requests.  Use it for predictable placements that read
-- well in listings.
return {
  name = "low",
  description = "lowest vertex id first at every level",
  order = { key = "id" },
}
