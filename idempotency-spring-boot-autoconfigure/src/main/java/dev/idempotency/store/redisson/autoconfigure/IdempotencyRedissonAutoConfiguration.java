package dev.idempotency.store.redisson.autoconfigure;

import dev.idempotency.autoconfigure.ConditionalOnFilterLayer;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.redisson.RedissonFailureTypes;
import dev.idempotency.store.redisson.RedissonIdempotencyLock;
import dev.idempotency.store.redisson.RedissonIdempotencyStore;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of Redisson, when it is on the class path:
 * <ul>
 * <li>the Redisson store, for {@code idempotency.store.type=redisson};</li>
 * <li>the Redisson lock of lock-then-double-check mode, for
 * {@code idempotency.redisson.lock.enabled=true}, in front of whichever store is configured;</li>
 * <li>for either, a {@link RedissonClient} built from {@code spring.data.redis.*} when the
 * application has none (its own, or {@code redisson-spring-boot-starter}'s, always wins);</li>
 * <li>Redisson's connection and timeout exceptions, which fail-closed calls the infrastructure's.</li>
 * </ul>
 * Runs before {@link IdempotencyStoreAutoConfiguration}, so that the chosen Redisson store is the
 * store; an {@code IdempotencyStore} or {@code IdempotencyLock} bean of the application's own wins.
 *
 * @since 0.2.0
 */
@AutoConfiguration(before = IdempotencyStoreAutoConfiguration.class,
		afterName = { "org.redisson.spring.starter.RedissonAutoConfiguration",
				"org.redisson.spring.starter.RedissonAutoConfigurationV2",
				"org.redisson.spring.starter.RedissonAutoConfigurationV4",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@ConditionalOnClass(RedissonClient.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyRedissonProperties.class)
public final class IdempotencyRedissonAutoConfiguration {

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnMissingBean
	@Conditional(RedissonUsed.class)
	RedissonClient idempotencyRedissonClient(Environment environment) {
		return SpringDataRedisClients.create(environment);
	}

	@Bean
	@ConditionalOnMissingBean(IdempotencyStore.class)
	@ConditionalOnProperty(name = "idempotency.store.type", havingValue = "redisson")
	RedissonIdempotencyStore idempotencyStore(RedissonClient redisson, IdempotencyRedissonProperties properties) {
		return new RedissonIdempotencyStore(redisson, properties.getKeyPrefix());
	}

	@Bean
	@ConditionalOnMissingBean(IdempotencyLock.class)
	@ConditionalOnBooleanProperty("idempotency.redisson.lock.enabled")
	RedissonIdempotencyLock idempotencyLock(RedissonClient redisson, IdempotencyRedissonProperties properties) {
		IdempotencyRedissonProperties.Lock lock = properties.getLock();
		return new RedissonIdempotencyLock(redisson, lock.getKeyPrefix(), lock.getWaitTime(), lock.getLeaseTime());
	}

	@Bean
	@ConditionalOnMissingBean
	RedissonFailureTypes idempotencyRedissonFailureTypes() {
		return new RedissonFailureTypes();
	}

	/** The Redisson store is chosen, the lock is on, or the filter chain lists the shared Bloom filter. */
	static final class RedissonUsed extends AnyNestedCondition {

		RedissonUsed() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnProperty(name = "idempotency.store.type", havingValue = "redisson")
		static class StoreChosen {

		}

		@ConditionalOnBooleanProperty("idempotency.redisson.lock.enabled")
		static class LockEnabled {

		}

		@ConditionalOnBooleanProperty("idempotency.filter.enabled")
		@ConditionalOnFilterLayer("redisson-bloom")
		static class SharedBloomListed {

		}

	}

}
