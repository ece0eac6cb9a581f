-- low: lowest vertex id first, at every level.
--
-- Children are visited in ascending order of their id (the number in
-- their name: node3 before node12), the older vertex first when ids are
-- equal.  Jobs pack at the low end of every id range, leaving the high end
-- free for large requests.  Use it for predictable placements that read
-- well in listings.  An order by id at every level (no `when`) declares
-- itself ascending (id_order): a fixed number of slots is then ranked by
-- the sums of its ids across the machine, as the C low and the reference
-- engine rank them.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "low",
  description = "lowest vertex id first at every level",
  order = { key = "id" },
}
