package dev.idempotency.filter.autoconfigure;

import java.time.Duration;

import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.filter.BloomDuplicateFilter;
import dev.idempotency.filter.FilterRebuilds;
import dev.idempotency.filter.NumericIdBitmapFilter;
import dev.idempotency.redis.filter.RedisRecentKeysFilter;
import dev.idempotency.redis.filter.autoconfigure.IdempotencyRedisRecentKeysFilterAutoConfiguration;
import dev.idempotency.store.redisson.autoconfigure.IdempotencyRedissonBloomFilterAutoConfiguration;
import dev.idempotency.support.DuplicateFilterChain;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

class IdempotencyFilterAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyFilterAutoConfiguration.class,
				IdempotencyRedisRecentKeysFilterAutoConfiguration.class,
				IdempotencyRedissonBloomFilterAutoConfiguration.class));

	@Test
	void offByDefault() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(DuplicateFilterChain.class)
			.doesNotHaveBean(DuplicateFilter.class));
	}

	@Test
	void theListedLayersInTheirOrder() {
		this.contextRunner.withBean(RedisConnectionFactory.class, LettuceConnectionFactory::new)
			.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=bitmap,bloom,redis-recent",
					"idempotency.filter.bloom.expected-insertions=1000", "idempotency.filter.bitmap.base=100")
			.run((context) -> {
				assertThat(context.getBean(DuplicateFilterChain.class).filters()).extracting(DuplicateFilter::name)
					.containsExactly("bitmap", "bloom", "redis-recent");
				assertThat(context.getBean(BloomDuplicateFilter.class).memoryBytes())
					.isEqualTo(2 * BloomDuplicateFilter.generationBytes(1000, 0.01));
				NumericIdBitmapFilter bitmap = context.getBean(NumericIdBitmapFilter.class);
				bitmap.learn(new IdempotencyKey("ns", "100"));
				assertThat(bitmap.check(new IdempotencyKey("ns", "100"))).isEqualTo(DuplicateFilter.Answer.COMPLETED);
			});
	}

	@Test
	void onlyTheListedLayersAreCreated() {
		this.contextRunner.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=bloom")
			.run((context) -> assertThat(context).hasSingleBean(BloomDuplicateFilter.class)
				.doesNotHaveBean(NumericIdBitmapFilter.class)
				.doesNotHaveBean(RedisRecentKeysFilter.class));
	}

	@Test
	void aListedLayerWithoutAFilterFailsStartUpWithTheFix() {
		this.contextRunner.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=redis-recent")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("idempotency.filter.layers lists 'redis-recent'")
				.hasMessageContaining("spring-boot-starter-data-redis"));
	}

	@Test
	void theSharedBloomFilterNeedsARedissonClient() {
		this.contextRunner.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=redisson-bloom")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("add org.redisson:redisson (a RedissonClient)"));
	}

	@Test
	void aFilterBeanOfYourOwnJoinsTheChainByName() {
		DuplicateFilter own = new DuplicateFilter() {
			@Override
			public String name() {
				return "own";
			}

			@Override
			public Answer check(IdempotencyKey key) {
				return Answer.UNKNOWN;
			}

			@Override
			public void learn(IdempotencyKey key) {
			}
		};
		this.contextRunner.withBean(DuplicateFilter.class, () -> own)
			.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=own,bloom")
			.run((context) -> assertThat(context.getBean(DuplicateFilterChain.class).filters())
				.extracting(DuplicateFilter::name)
				.containsExactly("own", "bloom"));
	}

	@Test
	void withoutACompletedKeySourceNothingIsRebuilt() {
		this.contextRunner.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=bloom")
			.run((context) -> assertThat(context.getBean(FilterRebuilds.class).rebuilds()).isEmpty());
	}

	@Test
	void theRecentKeysTimeToLiveCanBeSet() {
		this.contextRunner.withBean(RedisConnectionFactory.class, LettuceConnectionFactory::new)
			.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=redis-recent",
					"idempotency.filter.recent.ttl=2d")
			.run((context) -> assertThat(context.getBean(RedisRecentKeysFilter.class).timeToLive())
				.isEqualTo(Duration.ofDays(2)));
	}

}
