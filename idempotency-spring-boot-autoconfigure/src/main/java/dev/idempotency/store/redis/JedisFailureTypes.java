package dev.idempotency.store.redis;

import java.util.List;

import dev.idempotency.core.InfrastructureFailureTypes;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Jedis' connection exception, the infrastructure's wherever a Redis part of the starter or the
 * application meets it untranslated. Registered when Jedis is on the class path.
 *
 * @since 0.2.0
 */
public final class JedisFailureTypes implements InfrastructureFailureTypes {

	@Override
	public List<Class<? extends Throwable>> infrastructureFailureTypes() {
		return List.of(JedisConnectionException.class);
	}

}
