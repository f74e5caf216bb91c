-- Renews a claim's lease (RedisIdempotencyStore#renew) while its method runs: extends the entry's
-- expiry only if it still holds this claim's value.
-- KEYS[1] the entry
-- ARGV[1] the claim's in-progress value (PROCESSING:<token>)
-- ARGV[2] the new lease in milliseconds, from now
-- Returns 1 renewed, 0 the claim no longer held the key.
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
