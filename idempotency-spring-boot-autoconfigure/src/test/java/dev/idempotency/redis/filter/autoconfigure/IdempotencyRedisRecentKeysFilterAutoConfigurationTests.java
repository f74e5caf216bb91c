package dev.idempotency.redis.filter.autoconfigure;

import java.time.Duration;

import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.redis.filter.RedisRecentKeysFilter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyRedisRecentKeysFilterAutoConfiguration} on its own, without the filter chain's
 * auto-configuration: the {@code redis-recent} layer under the conditions it had inside that one (the
 * chain on, the layer listed, a {@code RedisConnectionFactory}), with its time to live from the Kafka
 * retry properties without the Kafka adapter. The connection factory connects lazily.
 */
class IdempotencyRedisRecentKeysFilterAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyRedisRecentKeysFilterAutoConfiguration.class))
		.withBean(RedisConnectionFactory.class, LettuceConnectionFactory::new)
		.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=redis-recent");

	@Test
	void theLayerWithTheKafkaRetryBudgetAsItsTimeToLive() {
		this.contextRunner
			.withPropertyValues("idempotency.kafka.retry.max-attempts=2", "idempotency.kafka.retry.initial-interval=5s",
					"idempotency.filter.recent.ttl-margin=10m", "idempotency.filter.recent.key-prefix=app:recent:")
			.run((context) -> {
				assertThat(context).hasSingleBean(DuplicateFilter.class).hasBean("idempotencyRecentKeysFilter");
				RedisRecentKeysFilter filter = context.getBean(RedisRecentKeysFilter.class);
				assertThat(filter.name()).isEqualTo("redis-recent");
				assertThat(filter.timeToLive()).isEqualTo(Duration.ofMinutes(10).plusSeconds(5));
			});
	}

	@Test
	void backsOffWhenTheChainIsOffOrTheLayerIsNotListed() {
		this.contextRunner.withPropertyValues("idempotency.filter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisRecentKeysFilter.class));
		this.contextRunner.withPropertyValues("idempotency.filter.layers=bloom")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisRecentKeysFilter.class));
	}

	@Test
	void backsOffWithoutAConnectionFactoryOrSpringDataRedis() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyRedisRecentKeysFilterAutoConfiguration.class))
			.withPropertyValues("idempotency.filter.enabled=true", "idempotency.filter.layers=redis-recent")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisRecentKeysFilter.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(StringRedisTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisRecentKeysFilter.class));
	}

}
