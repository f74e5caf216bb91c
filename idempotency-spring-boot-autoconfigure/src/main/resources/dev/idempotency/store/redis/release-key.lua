-- Releases one key for people (RedisIdempotencyStore#release(key, force)): deletes the entry and
-- its details unless it is a claim in progress (whose lease, its PX, has not ended: an ended one
-- has vanished) and the release is not forced.
-- KEYS[1] the entry
-- KEYS[2] the entry's details hash
-- ARGV[1] '1' to release a claim in progress too
-- Returns 1 released, 0 no entry, -1 refused (a claim in progress).
local value = redis.call('GET', KEYS[1])
if not value then
	return 0
end
if ARGV[1] ~= '1' and string.sub(value, 1, 11) == 'PROCESSING:' then
	return -1
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
