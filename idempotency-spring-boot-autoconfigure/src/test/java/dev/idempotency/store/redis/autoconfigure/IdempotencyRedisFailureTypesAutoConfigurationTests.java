package dev.idempotency.store.redis.autoconfigure;

import dev.idempotency.core.InfrastructureFailureTypes;
import dev.idempotency.store.redis.JedisFailureTypes;
import dev.idempotency.store.redis.LettuceFailureTypes;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.stream.MapRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyRedisFailureTypesAutoConfiguration} on its own: each Redis client's failure types
 * when the client is on the class path, as they were beside the stream transport, and whatever the
 * switches or the stream API say.
 */
class IdempotencyRedisFailureTypesAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyRedisFailureTypesAutoConfiguration.class));

	@Test
	void bothClientsContributeTheirFailureTypes() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasBean("idempotencyLettuceFailureTypes").hasBean("idempotencyJedisFailureTypes");
			assertThat(context.getBeansOfType(InfrastructureFailureTypes.class).values())
				.containsExactlyInAnyOrder(context.getBean(LettuceFailureTypes.class),
						context.getBean(JedisFailureTypes.class));
		});
	}

	@Test
	void eachClientContributesOnlyWhenOnTheClassPath() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedisClient.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LettuceFailureTypes.class)
				.hasSingleBean(JedisFailureTypes.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(Jedis.class))
			.run((context) -> assertThat(context).doesNotHaveBean(JedisFailureTypes.class)
				.hasSingleBean(LettuceFailureTypes.class));
	}

	@Test
	void staysWithoutTheStreamApiAndWhenTheSwitchesAreOff() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MapRecord.class))
			.withPropertyValues("idempotency.enabled=false", "idempotency.redis.stream.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(LettuceFailureTypes.class)
				.hasSingleBean(JedisFailureTypes.class));
	}

}
