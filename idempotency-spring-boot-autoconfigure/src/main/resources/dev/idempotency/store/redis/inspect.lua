-- Reads one key for people (RedisIdempotencyStore#inspect): the entry's value and remaining time,
-- and whether its details hash holds a fingerprint and a result, in one step.
-- KEYS[1] the entry
-- KEYS[2] the entry's details hash
-- ARGV[1] the fingerprint field, ARGV[2] the result field
-- Returns {} when there is no entry, else {value, pttl, has fingerprint (0/1), has result (0/1)}.
local value = redis.call('GET', KEYS[1])
if not value then
	return {}
end
return { value, redis.call('PTTL', KEYS[1]), redis.call('HEXISTS', KEYS[2], ARGV[1]),
	redis.call('HEXISTS', KEYS[2], ARGV[2]) }
