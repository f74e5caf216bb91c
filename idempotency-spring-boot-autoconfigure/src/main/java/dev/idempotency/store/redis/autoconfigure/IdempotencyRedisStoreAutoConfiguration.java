package dev.idempotency.store.redis.autoconfigure;

import javax.sql.DataSource;

import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.autoconfigure.store.StoreTypeCondition;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of the Redis store on the application's {@code RedisConnectionFactory}: when
 * chosen by {@code idempotency.store.type=redis}, or detected when the type is unset and there is no
 * {@code DataSource} (business data in a database belongs with the JDBC store), and the application
 * has no store of its own. Runs before {@link IdempotencyStoreAutoConfiguration}, which falls back to
 * the in-memory store.
 *
 * @since 0.2.0
 */
// After the DataSource too: whether there is one decides the detection.
@AutoConfiguration(before = IdempotencyStoreAutoConfiguration.class,
		afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnMissingBean(IdempotencyStore.class)
@Conditional(IdempotencyRedisStoreAutoConfiguration.ChosenOrDetected.class)
@EnableConfigurationProperties(IdempotencyRedisProperties.class)
public final class IdempotencyRedisStoreAutoConfiguration {

	@Bean
	RedisIdempotencyStore idempotencyStore(RedisConnectionFactory connectionFactory,
			IdempotencyRedisProperties properties) {
		return new RedisIdempotencyStore(connectionFactory, properties.getKeyPrefix());
	}

	/** {@code idempotency.store.type=redis}, or no type and no {@code DataSource}. */
	static final class ChosenOrDetected extends AnyNestedCondition {

		ChosenOrDetected() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@Conditional(StoreTypeCondition.Redis.class)
		static class Chosen {

		}

		@Conditional(StoreTypeCondition.Unset.class)
		@ConditionalOnMissingBean(DataSource.class)
		static class DetectedWithoutDataSource {

		}

	}

}
