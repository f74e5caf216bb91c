-- Marks a claimed key completed (RedisIdempotencyStore#complete), if the claim still holds it.
-- KEYS[1] the entry
-- ARGV[1] the claim's in-progress value (PROCESSING:<token>)
-- ARGV[2] the completed value
-- ARGV[3] the retention, in milliseconds
-- Returns 1 completed, 0 the claim no longer held the key (its lease expired).
if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
	return 1
end
return 0
