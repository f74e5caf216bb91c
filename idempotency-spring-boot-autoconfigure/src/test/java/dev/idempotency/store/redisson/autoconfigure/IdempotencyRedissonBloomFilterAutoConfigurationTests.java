package dev.idempotency.store.redisson.autoconfigure;

import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.store.redisson.RedissonBloomFilter;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * {@link IdempotencyRedissonBloomFilterAutoConfiguration} on its own, without the filter chain's
 * auto-configuration: the {@code redisson-bloom} layer under the conditions it had inside that one
 * (the chain on, the layer listed, a {@code RedissonClient}). A mock client: nothing connects.
 */
class IdempotencyRedissonBloomFilterAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyRedissonBloomFilterAutoConfiguration.class))
		.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=redisson-bloom");

	private final ApplicationContextRunner withClient = this.contextRunner.withBean("redisson", RedissonClient.class,
			() -> mock(RedissonClient.class));

	@Test
	void theSharedBloomFilterOnTheApplicationsClient() {
		this.withClient.run((context) -> {
			assertThat(context).hasSingleBean(DuplicateFilter.class).hasBean("idempotencyRedissonBloomFilter");
			assertThat(context.getBean(RedissonBloomFilter.class).name()).isEqualTo("redisson-bloom");
		});
	}

	@Test
	void backsOffWhenTheChainIsOffOrTheLayerIsNotListed() {
		this.withClient.withPropertyValues("idempotency.filter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedissonBloomFilter.class));
		this.withClient.withPropertyValues("idempotency.filter.layers=bloom")
			.run((context) -> assertThat(context).doesNotHaveBean(RedissonBloomFilter.class));
	}

	@Test
	void backsOffWithoutAClientOrRedisson() {
		this.contextRunner
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedissonBloomFilter.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedissonClient.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedissonBloomFilter.class));
	}

}
