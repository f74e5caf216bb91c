package dev.idempotency.store.redisson.autoconfigure;

import dev.idempotency.autoconfigure.ConditionalOnFilterLayer;
import dev.idempotency.autoconfigure.IdempotencyFilterProperties;
import dev.idempotency.store.redisson.RedissonBloomFilter;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code redisson-bloom} layer of the duplicate filter chain ({@link RedissonBloomFilter}: a
 * Bloom filter in Redis, shared by every instance), when the chain is on,
 * {@code idempotency.filter.layers} lists it and there is a {@link RedissonClient} (the
 * application's, or the one {@link IdempotencyRedissonAutoConfiguration} builds for it). Sized by
 * {@code idempotency.filter.bloom.*}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyRedissonAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "idempotency.filter.enabled")
@ConditionalOnClass(RedissonClient.class)
@ConditionalOnBean(RedissonClient.class)
@ConditionalOnFilterLayer("redisson-bloom")
@EnableConfigurationProperties(IdempotencyFilterProperties.class)
public final class IdempotencyRedissonBloomFilterAutoConfiguration {

	@Bean
	RedissonBloomFilter idempotencyRedissonBloomFilter(IdempotencyFilterProperties properties,
			RedissonClient redisson) {
		IdempotencyFilterProperties.Bloom bloom = properties.getBloom();
		return new RedissonBloomFilter(redisson, bloom.getSharedName(), bloom.getExpectedInsertions(),
				bloom.getFalsePositiveRate());
	}

}
