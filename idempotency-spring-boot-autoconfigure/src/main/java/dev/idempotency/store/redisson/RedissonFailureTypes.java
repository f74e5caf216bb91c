package dev.idempotency.store.redisson;

import java.util.List;

import dev.idempotency.core.InfrastructureFailureTypes;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisTimeoutException;

/**
 * Redisson's connection and timeout exceptions, the infrastructure's wherever the Redisson store,
 * lock or Bloom filter (or the application) meets them. Registered when Redisson is on the class
 * path.
 *
 * @since 0.2.0
 */
public final class RedissonFailureTypes implements InfrastructureFailureTypes {

	@Override
	public List<Class<? extends Throwable>> infrastructureFailureTypes() {
		return List.of(RedisConnectionException.class, RedisTimeoutException.class);
	}

}
