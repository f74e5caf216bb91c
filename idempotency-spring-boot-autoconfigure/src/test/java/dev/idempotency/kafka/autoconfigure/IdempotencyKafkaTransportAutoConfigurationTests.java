package dev.idempotency.kafka.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.MessageTransport;
import dev.idempotency.kafka.KafkaMessageTransport;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import org.apache.kafka.common.errors.NetworkException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.kafka.annotation.KafkaListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyKafkaTransportAutoConfiguration}: Kafka is a transport of the engine
 * whenever spring-kafka is on the class path, whatever the adapter's switches say.
 */
class IdempotencyKafkaTransportAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyKafkaTransportAutoConfiguration.class));

	private final ApplicationContextRunner withEngine = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory")
		.withBean(NamespaceRecorder.class)
		.withBean(OrderListener.class);

	@Test
	void kafkaIsATransport() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(MessageTransport.class)
			.hasSingleBean(KafkaMessageTransport.class));
	}

	@Test
	void backsOffWithoutSpringKafka() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(KafkaListener.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MessageTransport.class));
	}

	@Test
	void staysWhenTheKafkaAdapterOrTheInterceptionIsOff() {
		this.contextRunner.withPropertyValues("idempotency.kafka.enabled=false", "idempotency.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(KafkaMessageTransport.class));
	}

	@Test
	void defaultNamespaceNamesTheListenerByItsKafkaListenerId() {
		this.withEngine.withConfiguration(AutoConfigurations.of(IdempotencyKafkaTransportAutoConfiguration.class))
			.run((context) -> {
				context.getBean(OrderListener.class).onOrder("o-1");
				assertThat(context.getBean(NamespaceRecorder.class).namespaces).containsExactly("orders-listener");
			});
	}

	@Test
	void withoutTheTransportTheDefaultNamespaceNamesTheClassAndMethod() {
		this.withEngine.run((context) -> {
			context.getBean(OrderListener.class).onOrder("o-1");
			assertThat(context.getBean(NamespaceRecorder.class).namespaces).containsExactly("OrderListener#onOrder");
		});
	}

	@Test
	void kafkaClientOutagesAreTheInfrastructures() {
		this.withEngine.withConfiguration(AutoConfigurations.of(IdempotencyKafkaTransportAutoConfiguration.class))
			.run((context) -> assertThat(
					context.getBean(FailureClassifier.class).classify(new RuntimeException(new NetworkException())))
				.isEqualTo(FailureKind.INFRASTRUCTURE));
		this.withEngine.run((context) -> assertThat(
				context.getBean(FailureClassifier.class).classify(new RuntimeException(new NetworkException())))
			.isEqualTo(FailureKind.MESSAGE));
	}

	static class OrderListener {

		// No listener container here (no @EnableKafka): the method is called directly.
		@KafkaListener(id = "orders-listener", topics = "orders", autoStartup = "false")
		@Idempotent(key = "#p0")
		public void onOrder(String order) {
		}

	}

	static class NamespaceRecorder implements IdempotencyListener {

		final List<String> namespaces = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(IdempotencyEvent event) {
			this.namespaces.add(event.namespace());
		}

	}

}
