package dev.idempotency.kafka.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.idempotency.autoconfigure.actuate.DeadLetterSource;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.kafka.DeadLetterRedrive;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.core.KafkaOperations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyKafkaEndpointAutoConfiguration}: Kafka's dead letters in the {@code idempotency}
 * endpoint under the conditions they had inside the endpoint's auto-configuration (Actuator, the
 * endpoint available, a store, spring-kafka, the adapter's {@link DeadLetterRedrive}).
 */
class IdempotencyKafkaEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
				IdempotencyEndpointAutoConfiguration.class, IdempotencyKafkaEndpointAutoConfiguration.class))
		.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
		.withBean(DeadLetterRedrive.class,
				() -> new DeadLetterRedrive(Map.of(), Map.of(), ".DLT", Duration.ofSeconds(1)))
		.withPropertyValues("management.endpoints.web.exposure.include=idempotency");

	@Test
	void kafkaDeadLettersJoinTheEndpoint() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasBean("idempotencyKafkaDeadLetterSource");
			assertThat(context.getBean(DeadLetterSource.class).transport()).isEqualTo("kafka");
			assertThat(context.getBean(IdempotencyEndpoint.class).overview().deadLetters()).containsExactly("kafka");
		});
	}

	@Test
	void backsOffWhenTheEndpointIsNotExposedOrThereIsNoStore() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					IdempotencyKafkaEndpointAutoConfiguration.class))
			.withBean(DeadLetterRedrive.class,
					() -> new DeadLetterRedrive(Map.of(), Map.of(), ".DLT", Duration.ofSeconds(1)))
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
	}

	@Test
	void backsOffWithoutTheRedriveSpringKafkaOrActuator() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					IdempotencyKafkaEndpointAutoConfiguration.class))
			.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(KafkaOperations.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DeadLetterSource.class));
	}

}
