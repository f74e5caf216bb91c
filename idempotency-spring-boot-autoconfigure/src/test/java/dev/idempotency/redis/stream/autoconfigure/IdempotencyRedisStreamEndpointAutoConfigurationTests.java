package dev.idempotency.redis.stream.autoconfigure;

import dev.idempotency.autoconfigure.actuate.DeadLetterSource;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.redis.stream.DeadLetterStreamRedrive;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyRedisStreamEndpointAutoConfiguration}: the dead-letter streams in the
 * {@code idempotency} endpoint under the conditions they had inside the endpoint's
 * auto-configuration (Actuator, the endpoint available, a store, spring-data-redis, the stream
 * adapter's {@link DeadLetterStreamRedrive}). The connection factory connects lazily.
 */
class IdempotencyRedisStreamEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
				IdempotencyEndpointAutoConfiguration.class, IdempotencyRedisStreamEndpointAutoConfiguration.class))
		.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
		.withPropertyValues("management.endpoints.web.exposure.include=idempotency");

	private final ApplicationContextRunner withRedrive = this.contextRunner.withBean(DeadLetterStreamRedrive.class,
			() -> new DeadLetterStreamRedrive(new StringRedisTemplate(new LettuceConnectionFactory()), ".dlq"));

	@Test
	void redisDeadLettersJoinTheEndpoint() {
		this.withRedrive.run((context) -> {
			assertThat(context).hasBean("idempotencyRedisDeadLetterSource");
			assertThat(context.getBean(DeadLetterSource.class).transport()).isEqualTo("redis");
			assertThat(context.getBean(IdempotencyEndpoint.class).overview().deadLetters()).containsExactly("redis");
		});
	}

	@Test
	void backsOffWithoutTheRedriveOrWhenTheEndpointIsNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
		this.withRedrive.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
	}

	@Test
	void backsOffWithoutSpringDataRedisOrActuator() {
		this.withRedrive.withClassLoader(new FilteredClassLoader(StringRedisTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
		this.withRedrive.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
	}

}
