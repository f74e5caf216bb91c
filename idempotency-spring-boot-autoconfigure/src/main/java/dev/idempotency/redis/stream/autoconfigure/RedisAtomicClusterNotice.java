package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyValueIdempotencyStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * Says at start-up, once, how the redis-atomic completion runs on a Redis Cluster: a Lua script may
 * only touch keys of one hash slot, so the key and the stream entry are completed in one script only
 * where a common hash tag puts them in one slot; other keys are completed, then acknowledged.
 * Nothing is refused: both ways apply each message once.
 */
final class RedisAtomicClusterNotice implements SmartInitializingSingleton {

	static final String MESSAGE = "Redis Cluster with a Redis idempotency store: @RedisStreamListener methods "
			+ "complete a key and acknowledge its stream entry in one script (redis-atomic) only where the key "
			+ "and the stream hash to the same slot, that is, where the stream name and "
			+ "idempotency.redis.key-prefix carry the same hash tag (stream '{orders}', key prefix "
			+ "'{orders}:idempotency:'), which puts all of that stream's keys on one node. Other keys are "
			+ "completed, then acknowledged, in two steps; a crash between them leaves the key completed, so "
			+ "the redelivery is skipped as a duplicate";

	private static final Log logger = LogFactory.getLog(RedisAtomicClusterNotice.class);

	private final ObjectProvider<DataRedisConnectionDetails> connectionDetails;

	private final ObjectProvider<IdempotencyStore> stores;

	RedisAtomicClusterNotice(ObjectProvider<DataRedisConnectionDetails> connectionDetails,
			ObjectProvider<IdempotencyStore> stores) {
		this.connectionDetails = connectionDetails;
		this.stores = stores;
	}

	@Override
	public void afterSingletonsInstantiated() {
		DataRedisConnectionDetails details = this.connectionDetails.getIfUnique();
		if (details != null && details.getCluster() != null
				&& this.stores.getIfUnique() instanceof KeyValueIdempotencyStore) {
			logger.info(MESSAGE);
		}
	}

}
