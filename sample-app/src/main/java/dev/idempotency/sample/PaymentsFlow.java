package dev.idempotency.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Component;

/**
 * The payments flow: payment requests, some of them repeated, go to the {@value #TOPIC} topic, the
 * {@value #GROUP} group's {@link PaymentService} charges each at the payment provider in leased
 * mode, and the provider stub counts the charges. Before the requests are sent it can leave two
 * claims as crashed runs would, one after the charge and one before it, for the
 * {@code paymentsReconciler} to settle.
 */
@Component
public class PaymentsFlow {

	/** The topic payment requests are sent to. */
	public static final String TOPIC = "payments";

	/** Where requests that could not be charged end up (the starter's default suffix). */
	public static final String DEAD_LETTER_TOPIC = TOPIC + ".DLT";

	/** The consumer group of the payment service. */
	public static final String GROUP = "payments";

	/** The {@code @Idempotent} namespace of the payment service. */
	public static final String NAMESPACE = "payments";

	/** The lease of a simulated crashed claim: short, so the reconciler gets it soon. */
	private static final Duration CRASHED_LEASE = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(PaymentsFlow.class);

	private final KafkaTemplate<Object, Object> kafka;

	private final KafkaAdmin admin;

	private final MeterRegistry meters;

	private final ObjectProvider<IdempotencyStore> stores;

	private final PaymentProviderStub providerStub;

	private final PaymentProviderClient provider;

	private final Duration retention;

	public PaymentsFlow(KafkaTemplate<Object, Object> kafka, KafkaAdmin admin, MeterRegistry meters,
			ObjectProvider<IdempotencyStore> stores, PaymentProviderStub providerStub, PaymentProviderClient provider,
			@Value("${idempotency.retention:1d}") Duration retention) {
		this.kafka = kafka;
		this.admin = admin;
		this.meters = meters;
		this.stores = stores;
		this.providerStub = providerStub;
		this.provider = provider;
		this.retention = retention;
	}

	/**
	 * Leaves the state a crashed run would: the key claimed as {@code PROCESSING} under a lease that
	 * ends in a second, never completed, and, for {@link DemoPayments#crashedAfterCharge()}, the charge
	 * made at the provider. Nothing is left when idempotency is off (no store).
	 * @param payments the run's payments
	 * @return whether the claims were left
	 */
	public boolean leaveCrashedClaims(DemoPayments payments) {
		IdempotencyStore store = this.stores.getIfAvailable();
		IdempotencyStore leased = (store != null) ? store.leased() : null;
		if (leased == null) {
			logger.info("No leased idempotency store: no crashed payment claims simulated");
			return false;
		}
		PaymentRequested afterCharge = payments.crashedAfterCharge();
		if (afterCharge != null) {
			// Charged first: a reconciler scan between the two steps must not find the claim without
			// its charge and release it. The end state is the same as claim-then-charge-then-crash.
			this.provider.charge(afterCharge.paymentId(), afterCharge.amountCents());
			claim(leased, afterCharge);
		}
		PaymentRequested beforeCharge = payments.crashedBeforeCharge();
		if (beforeCharge != null) {
			claim(leased, beforeCharge);
		}
		return true;
	}

	private void claim(IdempotencyStore leased, PaymentRequested payment) {
		IdempotencyKey key = new IdempotencyKey(NAMESPACE, payment.paymentId());
		if (!leased.claim(key, CRASHED_LEASE, this.retention).isClaimed()) {
			throw new IllegalStateException("Could not leave a crashed claim of " + key + ": already claimed");
		}
	}

	/**
	 * Sends every payment request, repeats included, keyed by payment id.
	 * @param payments the run's payments
	 */
	public void send(DemoPayments payments) throws Exception {
		List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
		for (PaymentRequested payment : payments.sends()) {
			sent.add(this.kafka.send(TOPIC, payment.paymentId(), payment));
		}
		CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
	}

	/**
	 * Waits until the group has committed every request: charged, skipped as a duplicate, or
	 * dead-lettered. A crashed claim's requests wait for the reconciler's verdict first.
	 */
	public void awaitConsumed(Duration timeout) throws Exception {
		KafkaOffsets.awaitCommitted(this.admin, GROUP, TOPIC, timeout);
	}

	/** What the flow did, from the provider stub, the meters and the reconciler's verdicts. */
	public PaymentsReport report(DemoPayments payments, boolean crashedClaimsLeft) {
		return new PaymentsReport(this.providerStub.baseUri(), payments.sends().size(), payments.unique().size(),
				payments.duplicates().size(), crashedClaimsLeft ? payments.crashedClaims() : 0,
				FlowReport.invocations(this.meters, NAMESPACE, "processed"),
				FlowReport.invocations(this.meters, NAMESPACE, "duplicate"), verdicts("completed"), verdicts("retry"),
				this.providerStub.totalCharges(), this.providerStub.chargesByPayment().size());
	}

	private long verdicts(String verdict) {
		return (long) this.meters.find(IdempotencyMeters.RECONCILER_VERDICTS)
			.tag(IdempotencyMeters.VERDICT_TAG, verdict)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

}
