-- Claims an idempotency key (RedisIdempotencyStore#claim).
-- KEYS[1] the entry
-- ARGV[1] this claim's in-progress value (PROCESSING:<token>)
-- ARGV[2] the lease, in milliseconds
-- ARGV[3] the completed value
-- Returns 1 claimed, 2 duplicate, 3 in progress.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return 1
end
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
	-- This very claim, sent again by the client after a lost reply: it is ours.
	return 1
end
if current == ARGV[3] then
	return 2
end
-- Another claim's lease (an expired lease has vanished with its PX, so SET NX took it over above).
return 3
