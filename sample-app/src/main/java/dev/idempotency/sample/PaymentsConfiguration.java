package dev.idempotency.sample;

import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.IdempotencyReconciler.Verdict;
import org.apache.kafka.clients.admin.NewTopic;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;

/**
 * The payments flow's beans: the stand-in for the payment provider, the client the application
 * calls it with, the reconciler that settles payments left unfinished by a crash, and the topics.
 */
@Configuration(proxyBeanMethods = false)
public class PaymentsConfiguration {

	/** The outside payment provider, stubbed in-process on a free loopback port. */
	@Bean
	PaymentProviderStub paymentProviderStub() {
		return new PaymentProviderStub();
	}

	@Bean
	PaymentProviderClient paymentProviderClient(PaymentProviderStub stub) {
		return new PaymentProviderClient(stub.baseUri());
	}

	/**
	 * Settles a payment claim whose lease ended without completion by asking the provider: charged
	 * means the crashed run got as far as the charge, so the key is completed and the request is not
	 * charged again; none means it never got there, so the next delivery charges it. The sample's
	 * other listeners are transactional and leave no such claims; one of another namespace is parked
	 * for a person rather than guessed at.
	 */
	@Bean
	IdempotencyReconciler paymentsReconciler(PaymentProviderClient provider) {
		return (claim) -> {
			if (!PaymentsFlow.NAMESPACE.equals(claim.key().namespace())) {
				return Verdict.MANUAL;
			}
			return switch (provider.status(claim.key().value())) {
				case CHARGED -> Verdict.COMPLETED;
				case NONE -> Verdict.RETRY;
			};
		};
	}

	/** A single partition: the demo's payments are few. */
	@Bean
	NewTopic paymentsTopic() {
		return TopicBuilder.name(PaymentsFlow.TOPIC).partitions(1).replicas(1).build();
	}

	@Bean
	NewTopic paymentsDeadLetterTopic() {
		return TopicBuilder.name(PaymentsFlow.DEAD_LETTER_TOPIC).partitions(1).replicas(1).build();
	}

}
