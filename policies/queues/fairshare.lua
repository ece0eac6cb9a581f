-- fairshare: EASY backfilling over a queue ordered by fair share, with
-- usage that decays.
--
-- Each group, and each user within a group, is entitled to a share of the
-- machine; what it used counts against it, less and less as time passes
-- (its weight halves every HALF_LIFE seconds).  A job's fair-share factor
-- is the product of its group's and its user's factors, each
-- 2^-(usage / share) (the classic Slurm formula): usage is the
-- decayed unit-seconds of the group (of the user) over those of the
-- machine (of the user's group), and share is the group's (the user's)
-- shares over the shares of every group (every user of that group) seen
-- so far.  A factor of 1 means no use, 0.5 a use equal to the share, and
-- it tends to 0 as the use grows past it.  The priority adds an age term
-- so that no job starves:
--
--   priority = FS_WEIGHT * fairshare + AGE_WEIGHT * min(1, waited / MAX_AGE)
--
-- The queue is sorted by it, highest first (ties by submit time, then
-- job id), and scheduled by easy.  A job is charged its units times its
-- run time when it ends.  Jobs without a user or group count as the user
-- or group "" (one entity).
--
-- A job's priority is asked when it joins the queue, and every waiting
-- job's again after a job ends (usage moved) and on a tick of
-- PRIORITY_EVERY seconds (the age term moved): in between, the queue keeps
-- its order.  Decay alone moves no factor: it halves every usage alike.
--
-- Parameters (copy this file and change them):
--   HALF_LIFE     seconds after which past usage counts half (7 days)
--   USER_SHARES   shares per user id, default DEFAULT_SHARES
--   GROUP_SHARES  shares per group id, default DEFAULT_SHARES
--   FS_WEIGHT, AGE_WEIGHT, MAX_AGE  the priority's terms (1000, 100, 7 days)
--   PRIORITY_EVERY  seconds between two askings of every priority (1 hour)
--
-- A queue policy holds only its pass over the queue: the simulator keeps
-- the clock, the jobs, the matcher and the decayed usage.
local HALF_LIFE = 7 * 86400
local DEFAULT_SHARES = 1
local USER_SHARES = {}          -- e.g. {[17] = 4, [23] = 2}
local GROUP_SHARES = {}         -- e.g. {[3] = 10}
local FS_WEIGHT = 1000
local AGE_WEIGHT = 100
local MAX_AGE = 7 * 86400
local PRIORITY_EVERY = 3600

-- shares of the groups seen, and of the users seen in each group
local group_shares, group_total = {}, 0
local user_shares, user_total = {}, {}

local function key(x)
  if x == nil then return "" end
  return x
end

local function note(group, user)
  if not group_shares[group] then
    group_shares[group] = GROUP_SHARES[group] or DEFAULT_SHARES
    group_total = group_total + group_shares[group]
    user_shares[group], user_total[group] = {}, 0
  end
  local us = user_shares[group]
  if not us[user] then
    us[user] = USER_SHARES[user] or DEFAULT_SHARES
    user_total[group] = user_total[group] + us[user]
  end
end

-- 2^-(used / share), used and share as fractions of their whole
local function factor(used, whole, share, shares)
  local u = whole > 0 and used / whole or 0
  return 2 ^ -(u / (share / shares))
end

return {
  name = "fairshare",
  description = "EASY backfilling ordered by fair share (decaying usage) and age",
  base = "easy",
  half_life = HALF_LIFE,
  reprioritize = {every = PRIORITY_EVERY, ends = true},

  priority = function(job, ctx)
    local group, user = key(job.group), key(job.user)
    note(group, user)
    local total = ctx:decayed_usage()
    local gused = ctx:decayed_usage("group", group)
    local uused = ctx:decayed_usage("user", user)
    local fs = factor(gused, total, group_shares[group], group_total) *
      factor(uused, gused, user_shares[group][user], user_total[group])
    local age = (ctx:clock() - job.submit) / MAX_AGE
    if age > 1 then age = 1 end
    return FS_WEIGHT * fs + AGE_WEIGHT * age
  end,
}
