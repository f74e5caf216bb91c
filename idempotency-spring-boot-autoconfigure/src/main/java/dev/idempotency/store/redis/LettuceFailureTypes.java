package dev.idempotency.store.redis;

import java.util.List;

import dev.idempotency.core.InfrastructureFailureTypes;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

/**
 * Lettuce's connection and command-timeout exceptions, the infrastructure's wherever a Redis part
 * of the starter (store, stream listeners, recent-keys filter) or the application meets them
 * untranslated. Registered when Lettuce is on the class path.
 *
 * @since 0.2.0
 */
public final class LettuceFailureTypes implements InfrastructureFailureTypes {

	@Override
	public List<Class<? extends Throwable>> infrastructureFailureTypes() {
		return List.of(RedisConnectionException.class, RedisCommandTimeoutException.class);
	}

}
