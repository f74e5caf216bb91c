-- Marks a claimed key completed, if the claim still holds it: RedisIdempotencyStore#complete, and the
-- Redis Stream adapter's redis-atomic completion, which also acknowledges the stream entry in the
-- same step (one script for both, so the two cannot drift apart).
-- KEYS[1] the entry
-- KEYS[2] optional: the stream whose entry is acknowledged with the completion
-- ARGV[1] the claim's in-progress value (PROCESSING:<token>)
-- ARGV[2] the completed value
-- ARGV[3] the retention, in milliseconds
-- ARGV[4], ARGV[5] with KEYS[2]: the consumer group and the entry's id
-- Returns 1 completed (and acknowledged), 0 the claim no longer held the key (nothing changed).
if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
	if KEYS[2] then
		redis.call('XACK', KEYS[2], ARGV[4], ARGV[5])
	end
	return 1
end
return 0
