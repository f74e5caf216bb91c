-- Gives up a claim (RedisIdempotencyStore#release): deletes the entry only if it still holds this
-- claim's value, so a late worker never deletes the claim of the delivery that took over.
-- KEYS[1] the entry
-- ARGV[1] the claim's in-progress value (PROCESSING:<token>)
-- Returns 1 released, 0 the claim no longer held the key.
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0
