package dev.idempotency.kafka.autoconfigure;

import java.time.Duration;

import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.core.DeliveryListener;
import dev.idempotency.kafka.DeadLetterRecoverer;
import dev.idempotency.kafka.DeadLetterRedrive;
import dev.idempotency.kafka.IdempotentAfterRollbackProcessor;
import dev.idempotency.kafka.KafkaAcknowledgmentResolver;
import dev.idempotency.kafka.KafkaErrorHandlers;
import dev.idempotency.kafka.KafkaListenerContainerFactoryPostProcessor;
import dev.idempotency.kafka.SharedTopicNamespaceVerifier;
import dev.idempotency.kafka.TransactionBatchingContainers;
import dev.idempotency.kafka.TransactionBatchingListeners;
import dev.idempotency.support.FailClosedCircuits;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Role;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.function.SingletonSupplier;

/**
 * Kafka adapter: the delivery context on every listener container factory, acknowledgement of
 * manual-ack listeners after commit, and (unless the application defines its own
 * {@code CommonErrorHandler}) retries with back-off, then a dead-letter topic, pausing instead on
 * infrastructure failures while fail-closed is on; the same decisions after a Kafka transaction
 * rolls back (unless the application defines its own {@code AfterRollbackProcessor}); at start-up, the
 * dedup retention of {@code @Idempotent} listeners is checked against their topics' retention; a
 * {@link DeadLetterRedrive} re-drives dead-letter topics on request; with
 * {@code idempotency.kafka.transaction-batching.enabled}, record-style listeners run each poll in
 * one transaction ({@link TransactionBatchingListeners}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass(KafkaOperations.class)
@ConditionalOnBooleanProperty(name = { "idempotency.enabled", "idempotency.kafka.enabled" }, matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyKafkaProperties.class)
public final class IdempotencyKafkaAutoConfiguration {

	// How long a re-drive may read its dead-letter topic, and wait for one send
	private static final Duration DEAD_LETTER_REDRIVE_TIMEOUT = Duration.ofSeconds(30);

	@Bean
	static KafkaListenerContainerFactoryPostProcessor idempotencyKafkaListenerContainerFactoryPostProcessor() {
		return new KafkaListenerContainerFactoryPostProcessor();
	}

	/**
	 * Switches record-style {@code @Idempotent} listeners to one transaction per poll; static, as
	 * spring-kafka's annotation post-processor reads it before the listeners are created.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnBooleanProperty("idempotency.kafka.transaction-batching.enabled")
	static TransactionBatchingListeners idempotencyTransactionBatchingListeners() {
		return new TransactionBatchingListeners();
	}

	@Bean(TransactionBatchingContainers.BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnBooleanProperty("idempotency.kafka.transaction-batching.enabled")
	static TransactionBatchingContainers idempotencyTransactionBatchingContainers() {
		return new TransactionBatchingContainers();
	}

	@Bean
	static SharedTopicNamespaceVerifier idempotencySharedTopicNamespaceVerifier(
			ConfigurableListableBeanFactory beanFactory) {
		return new SharedTopicNamespaceVerifier(beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	KafkaAcknowledgmentResolver kafkaAcknowledgmentResolver() {
		return new KafkaAcknowledgmentResolver();
	}

	@Bean
	@ConditionalOnMissingBean(CommonErrorHandler.class)
	@ConditionalOnBean(KafkaOperations.class)
	DefaultErrorHandler idempotencyKafkaErrorHandler(KafkaOperations<?, ?> kafkaOperations,
			IdempotencyKafkaProperties properties, ObjectProvider<DeliveryListener> listeners,
			ObjectProvider<FailClosedCircuits> failClosed) {
		IdempotencyKafkaProperties.Retry retry = properties.getRetry();
		return KafkaErrorHandlers.retryThenRecover(deadLetterRecoverer(kafkaOperations, properties, listeners),
				retry.getMaxAttempts(), retry.getInitialInterval(), retry.getMultiplier(), retry.getMaxInterval(),
				failClosed.getIfAvailable());
	}

	/**
	 * What the container does after rolling back a Kafka transaction (Spring Boot sets it on its
	 * listener container factory): the error handler's retries, dead-letter topic and fail-closed,
	 * with a recovered record's offset committed in the transaction that publishes it. Without it,
	 * spring-kafka logs and skips a record after ten rollbacks.
	 */
	@Bean
	@ConditionalOnMissingBean(AfterRollbackProcessor.class)
	@ConditionalOnBean(KafkaOperations.class)
	IdempotentAfterRollbackProcessor<Object, Object> idempotencyKafkaAfterRollbackProcessor(
			KafkaOperations<?, ?> kafkaOperations, IdempotencyKafkaProperties properties,
			ObjectProvider<DeliveryListener> listeners, ObjectProvider<FailClosedCircuits> failClosed) {
		IdempotencyKafkaProperties.Retry retry = properties.getRetry();
		return KafkaErrorHandlers.retryThenRecoverAfterRollback(
				deadLetterRecoverer(kafkaOperations, properties, listeners), kafkaOperations, retry.getMaxAttempts(),
				retry.getInitialInterval(), retry.getMultiplier(), retry.getMaxInterval(),
				failClosed.getIfAvailable());
	}

	private static DeadLetterRecoverer deadLetterRecoverer(KafkaOperations<?, ?> kafkaOperations,
			IdempotencyKafkaProperties properties, ObjectProvider<DeliveryListener> listeners) {
		return new DeadLetterRecoverer(kafkaOperations, properties.getDeadLetter().getSuffix(),
				SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

	/**
	 * Lists and re-drives the records of dead-letter topics, with the application's consumer and
	 * producer configuration (a consumer without a group, a producer of bytes).
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(ConsumerFactory.class)
	@ConditionalOnBean(ProducerFactory.class)
	DeadLetterRedrive idempotencyDeadLetterRedrive(ConsumerFactory<?, ?> consumerFactory,
			ObjectProvider<ProducerFactory<?, ?>> producerFactories, IdempotencyKafkaProperties properties) {
		// Asked for on each re-drive: a factory that cannot tell its configuration fails the re-drive only
		return new DeadLetterRedrive(consumerFactory::getConfigurationProperties,
				() -> producerFactory(producerFactories).getConfigurationProperties(),
				properties.getDeadLetter().getSuffix(), DEAD_LETTER_REDRIVE_TIMEOUT);
	}

	private static ProducerFactory<?, ?> producerFactory(ObjectProvider<ProducerFactory<?, ?>> producerFactories) {
		ProducerFactory<?, ?> producerFactory = producerFactories.getIfUnique();
		return (producerFactory != null) ? producerFactory : producerFactories.orderedStream().findFirst().orElseThrow();
	}

	@Bean
	@Conditional(RetentionCheckOn.class)
	KafkaRetentionVerifier idempotencyKafkaRetentionVerifier(ConfigurableListableBeanFactory beanFactory,
			IdempotencyKafkaProperties properties, ObjectProvider<IdempotencyProperties> coreProperties,
			ObjectProvider<KafkaAdmin> admins) {
		return new KafkaRetentionVerifier(beanFactory, properties,
				coreProperties.getIfAvailable(IdempotencyProperties::new).getRetention(), admins);
	}

	/**
	 * {@code idempotency.kafka.retention-check} is not {@code off}.
	 */
	static final class RetentionCheckOn extends NoneNestedConditions {

		RetentionCheckOn() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnProperty(name = "idempotency.kafka.retention-check", havingValue = "off")
		static final class Off {

		}

	}

}
