package dev.idempotency.kafka.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.kafka.IdempotentAfterRollbackProcessor;
import dev.idempotency.kafka.IdempotentErrorHandler;
import dev.idempotency.kafka.KafkaAcknowledgmentResolver;
import dev.idempotency.kafka.KafkaDeliveryContextInterceptor;
import dev.idempotency.kafka.KafkaListenerContainerFactoryPostProcessor;
import dev.idempotency.kafka.TransactionBatchingAdapter;
import dev.idempotency.kafka.TransactionBatchingContainers;
import dev.idempotency.kafka.TransactionBatchingListeners;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.listener.adapter.BatchMessagingMessageListenerAdapter;
import org.springframework.kafka.listener.adapter.RecordMessagingMessageListenerAdapter;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of {@link IdempotencyKafkaAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyKafkaAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class, IdempotencyKafkaAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory");

	@Test
	void errorHandlerWithRetriesAndDeadLetterTopicIsProvided() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(DefaultErrorHandler.class)
				.hasSingleBean(KafkaAcknowledgmentResolver.class)
				.hasSingleBean(KafkaListenerContainerFactoryPostProcessor.class);
		});
	}

	@Test
	void errorHandlerPausesOnInfrastructureFailuresOnlyWhenFailClosedCircuitsExist() {
		FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		}, new FailClosedSettings(Duration.ofSeconds(2), Duration.ofSeconds(30)), List::of);
		this.contextRunner.withBean(FailClosedCircuits.class, () -> circuits)
			.run((context) -> assertThat(context.getBean(IdempotentErrorHandler.class).isFailClosed()).isTrue());
		this.contextRunner
			.run((context) -> assertThat(context.getBean(IdempotentErrorHandler.class).isFailClosed()).isFalse());
	}

	@Test
	void afterRollbackProcessorWithTheErrorHandlersDecisionsIsProvided() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(IdempotentAfterRollbackProcessor.class);
			IdempotentAfterRollbackProcessor<?, ?> processor = context.getBean(IdempotentAfterRollbackProcessor.class);
			// Runs in a Kafka transaction, so that a dead letter's offset commits with it.
			assertThat(processor.isProcessInTransaction()).isTrue();
			assertThat(processor.isFailClosed()).isFalse();
		});
	}

	@Test
	void afterRollbackProcessorPausesOnInfrastructureFailuresOnlyWhenFailClosedCircuitsExist() {
		FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(), () -> {
		}, new FailClosedSettings(Duration.ofSeconds(2), Duration.ofSeconds(30)), List::of);
		this.contextRunner.withBean(FailClosedCircuits.class, () -> circuits)
			.run((context) -> assertThat(context.getBean(IdempotentAfterRollbackProcessor.class).isFailClosed())
				.isTrue());
	}

	@Test
	void bootsListenerContainerFactoryGetsTheAfterRollbackProcessor() {
		this.contextRunner.withPropertyValues("spring.kafka.producer.transaction-id-prefix=tx-").run((context) -> {
			ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			assertThat(ReflectionTestUtils.getField(factory, "afterRollbackProcessor"))
				.isSameAs(context.getBean(IdempotentAfterRollbackProcessor.class));
		});
	}

	@Test
	void applicationAfterRollbackProcessorWins() {
		this.contextRunner.withBean(AfterRollbackProcessor.class, DefaultAfterRollbackProcessor::new)
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotentAfterRollbackProcessor.class)
				.hasSingleBean(AfterRollbackProcessor.class)
				.hasSingleBean(IdempotentErrorHandler.class));
	}

	@Test
	void applicationErrorHandlerWins() {
		this.contextRunner.withBean(CommonErrorHandler.class, CommonLoggingErrorHandler::new)
			.run((context) -> assertThat(context).doesNotHaveBean(DefaultErrorHandler.class)
				.hasSingleBean(CommonErrorHandler.class));
	}

	@Test
	void bootsListenerContainerFactoryGetsTheDeliveryContextAndTheErrorHandler() {
		this.contextRunner.run((context) -> {
			ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			assertThat(factory.getRecordInterceptor()).isInstanceOf(KafkaDeliveryContextInterceptor.class);
		});
	}

	@Test
	void applicationRecordInterceptorIsKeptAlongsideTheDeliveryContext() {
		RecordInterceptor<Object, Object> own = (record, consumer) -> record;
		this.contextRunner.withBean(RecordInterceptor.class, () -> own).run((context) -> {
			ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			assertThat(factory.getRecordInterceptor()).isInstanceOf(CompositeRecordInterceptor.class);
		});
	}

	@Test
	void transactionBatchingIsOffByDefault() {
		this.contextRunner.withBean(OrderListener.class)
			.withPropertyValues("idempotency.kafka.retention-check=off")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(TransactionBatchingListeners.class)
					.doesNotHaveBean(TransactionBatchingContainers.class);
				assertThat(onlyContainer(context).getContainerProperties().getMessageListener())
					.isInstanceOf(RecordMessagingMessageListenerAdapter.class);
			});
	}

	@Test
	void transactionBatchingHandsARecordIdempotentListenerEachPollThroughItsAdapter() {
		this.contextRunner.withBean(OrderListener.class)
			.withPropertyValues("idempotency.kafka.retention-check=off",
					"idempotency.kafka.transaction-batching.enabled=true")
			.run((context) -> {
				assertThat(context).hasSingleBean(TransactionBatchingListeners.class)
					.hasSingleBean(TransactionBatchingContainers.class);
				Object listener = onlyContainer(context).getContainerProperties().getMessageListener();
				assertThat(listener).isInstanceOf(BatchMessagingMessageListenerAdapter.class);
				assertThat(ReflectionTestUtils.getField(listener, "batchToRecordAdapter"))
					.isInstanceOf(TransactionBatchingAdapter.class);
			});
	}

	@Test
	void transactionBatchingFailsStartUpWithKafkaTransactions() {
		this.contextRunner.withBean(OrderListener.class)
			.withPropertyValues("idempotency.kafka.retention-check=off",
					"idempotency.kafka.transaction-batching.enabled=true",
					"spring.kafka.producer.transaction-id-prefix=tx-")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("transaction batching is not available with Kafka transactions"));
	}

	@Test
	void transactionBatchingFailsStartUpWithTheRecordAckMode() {
		this.contextRunner.withBean(OrderListener.class)
			.withPropertyValues("idempotency.kafka.retention-check=off",
					"idempotency.kafka.transaction-batching.enabled=true", "spring.kafka.listener.ack-mode=record")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("transaction batching is not available with ack-mode RECORD")
				.hasMessageContaining("spring.kafka.listener.ack-mode=batch"));
	}

	private static MessageListenerContainer onlyContainer(ApplicationContext context) {
		Collection<MessageListenerContainer> containers = context.getBean(KafkaListenerEndpointRegistry.class)
			.getListenerContainers();
		assertThat(containers).hasSize(1);
		return containers.iterator().next();
	}

	@Test
	void switchedOffByProperty() {
		this.contextRunner.withPropertyValues("idempotency.kafka.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(KafkaListenerContainerFactoryPostProcessor.class)
				.doesNotHaveBean(DefaultErrorHandler.class)
				.doesNotHaveBean(AfterRollbackProcessor.class)
				.doesNotHaveBean(KafkaAcknowledgmentResolver.class));
	}

	@Test
	void backsOffWithoutSpringKafka() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyKafkaAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(KafkaOperations.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(KafkaListenerContainerFactoryPostProcessor.class));
	}

	@Test
	void retentionCheckIsOnByDefault() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(KafkaRetentionVerifier.class));
	}

	@Test
	void retentionCheckOffRegistersNoVerifier() {
		this.contextRunner.withPropertyValues("idempotency.kafka.retention-check=off")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(KafkaRetentionVerifier.class));
	}

	@Test
	void retentionCheckIsSwitchedOffWithTheKafkaAdapter() {
		this.contextRunner.withPropertyValues("idempotency.kafka.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(KafkaRetentionVerifier.class));
	}

	@Test
	void retentionCheckWithoutIdempotentListenersDoesNotAskTheBroker(CapturedOutput output) throws IOException {
		this.contextRunner
			.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:" + closedPort(),
					"idempotency.kafka.retention-check=fail", "idempotency.kafka.retention-check-timeout=200ms")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("Retention check");
	}

	@Test
	void unreachableBrokerDoesNotFailStartUpInFailMode(CapturedOutput output) throws IOException {
		long start = System.nanoTime();
		this.contextRunner.withBean(OrderListener.class)
			.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:" + closedPort(),
					"idempotency.kafka.retention-check=fail", "idempotency.kafka.retention-check-timeout=300ms")
			.run((context) -> assertThat(context).hasNotFailed());
		// Far below the Admin client's own 60 s default, far above a start-up on a loaded machine.
		assertThat(System.nanoTime() - start).as("start-up time in ns").isLessThan(15_000_000_000L);
		assertThat(output).contains("Retention check could not run").contains("[orders]");
	}

	@Test
	void retentionCheckOffDoesNotAskTheBroker(CapturedOutput output) throws IOException {
		this.contextRunner.withBean(OrderListener.class)
			.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:" + closedPort(),
					"idempotency.kafka.retention-check=off")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("Retention check");
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	static class OrderListener {

		@KafkaListener(topics = "orders", groupId = "orders", autoStartup = "false")
		@Idempotent(key = "#order")
		void onOrder(String order) {
		}

	}

}
