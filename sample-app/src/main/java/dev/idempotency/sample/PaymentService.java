package dev.idempotency.sample;

import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.annotation.Idempotent;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Service;

/**
 * Charges payments at the payment provider, once per payment however often a request arrives. The
 * work is an HTTP call that no database transaction covers, so the method runs in leased mode
 * ({@code docs/leased-mode.md}): the key is claimed as {@code PROCESSING} in a short transaction of
 * its own, the provider is called with no transaction open, and a second short transaction marks
 * the key {@code COMPLETED} before the offset is committed. A request that fails releases its claim
 * and is retried.
 * <p>
 * A crash between the claim and the completion leaves the key {@code PROCESSING}; when its lease
 * has ended, the {@code paymentsReconciler} ({@link PaymentsConfiguration}) asks the provider
 * whether the charge went through, and no delivery runs the key again before it has decided.
 */
@Service
public class PaymentService {

	/** The listener container's id. */
	public static final String LISTENER_ID = "payments";

	private final PaymentProviderClient provider;

	public PaymentService(PaymentProviderClient provider) {
		this.provider = provider;
	}

	@KafkaListener(id = LISTENER_ID, topics = PaymentsFlow.TOPIC, groupId = PaymentsFlow.GROUP,
			properties = "spring.json.value.default.type=dev.idempotency.sample.PaymentRequested")
	@Idempotent(key = "#msg.paymentId", namespace = PaymentsFlow.NAMESPACE, mode = IdempotencyMode.LEASED,
			lease = "10s")
	public void charge(PaymentRequested msg) {
		this.provider.charge(msg.paymentId(), msg.amountCents());
	}

}
