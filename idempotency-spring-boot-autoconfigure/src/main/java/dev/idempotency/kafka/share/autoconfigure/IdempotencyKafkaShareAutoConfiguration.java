package dev.idempotency.kafka.share.autoconfigure;

import java.util.List;
import java.util.Map;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.kafka.DeadLetterRecoverer;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaAutoConfiguration;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaProperties;
import dev.idempotency.kafka.share.ImplicitShareAckVerifier;
import dev.idempotency.kafka.share.ShareDeliveryAttempts;
import dev.idempotency.kafka.share.ShareFailurePolicy;
import dev.idempotency.kafka.share.ShareListenerContainers;
import dev.idempotency.kafka.share.ShareLockRenewal;
import dev.idempotency.support.FailClosedCircuits;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.util.function.SingletonSupplier;

/**
 * Kafka share groups (KIP-932): binds every share-group container (of a
 * {@code ShareKafkaListenerContainerFactory}) so that {@code @Idempotent} listeners accept a record
 * only after their transaction commits, release it on a rollback or an outage (pausing fetching
 * through fail-closed), dead-letter and reject it when it cannot succeed (bad input, failures a
 * retry cannot fix, the broker's last delivery attempt), and renew its lock while a slow method
 * runs. Refuses {@code @Idempotent} on containers in {@code ShareAckMode.IMPLICIT}.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = IdempotencyKafkaAutoConfiguration.class)
@ConditionalOnClass(ShareKafkaListenerContainerFactory.class)
@ConditionalOnBooleanProperty(
		name = { "idempotency.enabled", "idempotency.kafka.enabled", "idempotency.kafka.share.enabled" },
		matchIfMissing = true)
@EnableConfigurationProperties({ IdempotencyKafkaShareProperties.class, IdempotencyKafkaProperties.class })
public final class IdempotencyKafkaShareAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShareDeliveryAttempts idempotencyShareDeliveryAttempts(IdempotencyKafkaShareProperties properties,
			ObjectProvider<KafkaAdmin> admins) {
		return new ShareDeliveryAttempts(() -> {
			KafkaAdmin admin = admins.getIfAvailable();
			return (admin != null) ? admin.getConfigurationProperties() : Map.of();
		}, properties.getMaxAttempts(), properties.getBrokerTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	ShareFailurePolicy idempotencyShareFailurePolicy(IdempotencyKafkaShareProperties properties,
			IdempotencyKafkaProperties kafkaProperties, ShareDeliveryAttempts attempts,
			ObjectProvider<KafkaOperations<?, ?>> kafkaOperations, ObjectProvider<DeliveryListener> listeners,
			ObjectProvider<FailClosedCircuits> failClosed) {
		KafkaOperations<?, ?> operations = properties.isDeadLetter() ? kafkaOperations.getIfUnique() : null;
		DeadLetterRecoverer deadLetters = (operations != null) ? new DeadLetterRecoverer(operations,
				kafkaProperties.getDeadLetter().getSuffix(), SingletonSupplier.of(() -> listeners.orderedStream().toList())) : null;
		return new ShareFailurePolicy(deadLetters, failClosed.getIfAvailable(), attempts::limit);
	}

	@Bean
	@ConditionalOnMissingBean
	ShareLockRenewal idempotencyShareLockRenewal(IdempotencyKafkaShareProperties properties) {
		return properties.isRenew() ? ShareLockRenewal.onDaemonThreads(properties.getRenewInterval())
				: ShareLockRenewal.never();
	}

	@Bean
	ShareListenerContainers idempotencyShareListenerContainers(ObjectProvider<KafkaListenerEndpointRegistry> registry,
			ShareFailurePolicy policy, ShareLockRenewal renewal, ShareDeliveryAttempts attempts,
			ObjectProvider<FailClosedCircuits> failClosed, ObjectProvider<DeliveryListener> listeners) {
		return new ShareListenerContainers(() -> {
			KafkaListenerEndpointRegistry endpoints = registry.getIfAvailable();
			return (endpoints != null) ? endpoints.getAllListenerContainers() : List.of();
		}, policy, renewal, failClosed.getIfAvailable(), attempts, SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

	@Bean
	static ImplicitShareAckVerifier idempotencyImplicitShareAckVerifier(ConfigurableListableBeanFactory beanFactory) {
		return new ImplicitShareAckVerifier(beanFactory);
	}

}
